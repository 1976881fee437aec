//! The request log of `moulin serve`: one line a request, written when its
//! response is finished (or abandoned):
//!
//! ```text
//! 2026-12-04T05:06:07.089Z 127.0.0.1:51234 GET /tables/6v5.mtb 206 4096 0.412ms
//! ```
//!
//! time (UTC), client address, method, path and query as sent, status,
//! bytes of body sent, time from the request to its last byte. A connection
//! turned away when all are taken logs `- -` for method and path.

use std::fs::File;
use std::io::Write;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Where request lines go.
pub enum Log {
    Off,
    Stderr,
    File(Mutex<File>),
}

impl Log {
    /// The log `--log` names: `-` for standard error, else a file appended to.
    pub fn open(path: &Path) -> std::io::Result<Log> {
        if path == Path::new("-") {
            return Ok(Log::Stderr);
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        Ok(Log::File(Mutex::new(file)))
    }

    pub fn is_on(&self) -> bool {
        !matches!(self, Log::Off)
    }

    /// Writes one request's line (in one write, so lines never interleave).
    pub fn request(
        &self,
        peer: SocketAddr,
        method: &str,
        target: &str,
        status: u16,
        bytes: u64,
        took: Duration,
    ) {
        if !self.is_on() {
            return;
        }
        let line = format!(
            "{} {peer} {method} {target} {status} {bytes} {:.3}ms\n",
            utc(SystemTime::now()),
            took.as_secs_f64() * 1e3
        );
        // A log that cannot be written must not stop the answers.
        let _ = match self {
            Log::Off => Ok(()),
            Log::Stderr => std::io::stderr().lock().write_all(line.as_bytes()),
            Log::File(f) => match f.lock() {
                Ok(mut f) => f.write_all(line.as_bytes()),
                Err(_) => Ok(()),
            },
        };
    }
}

/// A time as ISO 8601 in UTC with milliseconds: `2026-12-04T05:06:07.089Z`.
pub fn utc(t: SystemTime) -> String {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs();
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rest / 3600,
        rest / 60 % 60,
        rest % 60,
        d.subsec_millis()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_times() {
        let at = |s: u64, ms: u64| utc(UNIX_EPOCH + Duration::from_millis(s * 1000 + ms));
        assert_eq!(at(0, 0), "1970-01-01T00:00:00.000Z");
        // `date -u -d @951782400` = Tue Feb 29 00:00:00 UTC 2000 (a leap day).
        assert_eq!(at(951_782_400, 5), "2000-02-29T00:00:00.005Z");
        // `date -u -d @1796360767` = Fri Dec  4 05:06:07 UTC 2026.
        assert_eq!(at(1_796_360_767, 89), "2026-12-04T05:06:07.089Z");
        // `date -u -d @4107542399` = Sun Feb 28 23:59:59 UTC 2100 (no leap day).
        assert_eq!(at(4_107_542_399, 999), "2100-02-28T23:59:59.999Z");
    }
}
