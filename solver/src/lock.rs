//! One writer per table directory: an advisory lock (`flock`) on
//! `<dir>/.moulin-lock`, released by the system when the holder ends, even
//! by a crash. The file says who holds it, for the message of the next one.

use moulin_core::error::FileError;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// The name of the lock file in a table directory.
pub const LOCK_FILE: &str = ".moulin-lock";

/// The lock of a table directory, held until dropped.
#[derive(Debug)]
pub struct DirectoryLock {
    _file: File,
    path: PathBuf,
}

impl DirectoryLock {
    /// Takes the lock of `dir` for `holder` (what the next one will be told:
    /// say the command), or says who holds it (`FileError::Locked`).
    ///
    /// # Errors
    /// [`FileError::Locked`] while another holder has it (another process,
    /// or another `DirectoryLock` of this one); [`FileError::Io`] if the
    /// lock file cannot be created or written.
    pub fn acquire(dir: &Path, holder: &str) -> Result<DirectoryLock, FileError> {
        let path = dir.join(LOCK_FILE);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut text = String::new();
                // What the holder wrote; it may be writing it right now.
                let _ = file.take(1024).read_to_string(&mut text);
                return Err(FileError::Locked {
                    dir: dir.to_path_buf(),
                    holder: text.trim().to_string(),
                });
            }
            Err(TryLockError::Error(e)) => return Err(e.into()),
        }
        file.set_len(0)?;
        file.seek(SeekFrom::Start(0))?;
        writeln!(file, "pid {}: {holder}", std::process::id())?;
        Ok(DirectoryLock { _file: file, path })
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_writer_is_told_who_holds_the_directory() {
        let dir = tempfile::tempdir().unwrap();
        let first = DirectoryLock::acquire(dir.path(), "moulin solve --all").unwrap();
        let err = DirectoryLock::acquire(dir.path(), "moulin tamper").unwrap_err();
        let text = err.to_string();
        assert!(text.contains("moulin solve --all"), "{text}");
        assert!(
            text.contains(&format!("pid {}", std::process::id())),
            "{text}"
        );
        drop(first);
        DirectoryLock::acquire(dir.path(), "moulin tamper").unwrap();
    }
}
