use super::*;
use std::collections::HashMap;
use std::sync::Mutex;

#[test]
fn parses_content_ranges_strictly() {
    let range = |first, last, total| Some(ContentRange { first, last, total });
    assert_eq!(content_range("bytes 0-127/5000"), range(0, 127, Some(5000)));
    assert_eq!(
        content_range("bytes 100-199/200"),
        range(100, 199, Some(200))
    );
    assert_eq!(content_range(" bytes 5-9/* "), range(5, 9, None));
    for bad in [
        "",
        "bytes 10-9/5000",
        "bytes 0-5000/5000",
        "bytes */5000",
        "bytes */200",
        "items 1-2/3",
        "bytes 1-2",
        "bytes x-2/3",
        "bytes 1-/3",
        "bytes -2/3",
        "bytes +1-2/3",
        "bytes 1-2/",
        "bytes 1 -2/3",
    ] {
        assert_eq!(content_range(bad), None, "{bad}");
    }
}

/// How the fake server answers.
#[derive(Clone, Copy, PartialEq)]
enum Serve {
    Ranges,
    /// Every reply whole, as a 200.
    Whole,
    /// The range asked for, but one byte later.
    Shifted,
    /// `bytes a-b/*`.
    NoTotal,
    /// Half the body announced.
    Short,
    Status(u16),
}

/// A file answered from memory, and the ranges asked for.
struct Fake {
    file: Mutex<Vec<u8>>,
    etag: Mutex<&'static str>,
    serve: Mutex<Serve>,
    asked: Mutex<Vec<(u64, u64)>>,
}

impl Fake {
    fn new(file: Vec<u8>) -> Arc<Fake> {
        Arc::new(Fake {
            file: Mutex::new(file),
            etag: Mutex::new("\"a\""),
            serve: Mutex::new(Serve::Ranges),
            asked: Mutex::new(Vec::new()),
        })
    }

    fn set(&self, serve: Serve) {
        *self.serve.lock().unwrap() = serve;
    }

    fn asked(&self) -> Vec<(u64, u64)> {
        std::mem::take(&mut *self.asked.lock().unwrap())
    }
}

impl Transport for Arc<Fake> {
    type Body = Vec<u8>;

    fn get(&self, url: &str, first: u64, last: u64) -> io::Result<Reply<Vec<u8>>> {
        assert_eq!(url, "http://h/t/3v3.mtb");
        self.asked.lock().unwrap().push((first, last));
        let file = self.file.lock().unwrap().clone();
        let total = file.len() as u64;
        let serve = *self.serve.lock().unwrap();
        let (status, mut first, mut body) = match serve {
            Serve::Status(status) => (status, 0, b"no".to_vec()),
            Serve::Whole => (200, 0, file.clone()),
            _ => {
                let last = last.min(total - 1);
                (206, first, file[first as usize..=last as usize].to_vec())
            }
        };
        if serve == Serve::Shifted {
            first += 1;
        }
        let last = first + body.len() as u64 - 1;
        let content_range = match serve {
            Serve::NoTotal => format!("bytes {first}-{last}/*"),
            _ => format!("bytes {first}-{last}/{total}"),
        };
        if serve == Serve::Short {
            body.truncate(body.len() / 2);
        }
        Ok(Reply {
            status,
            reason: String::new(),
            content_range: (status == 206).then_some(content_range),
            etag: Some(self.etag.lock().unwrap().to_string()),
            content_length: Some(body.len() as u64),
            body,
        })
    }
}

fn sector() -> Sector {
    "3v3".parse().unwrap()
}

fn open(fake: &Arc<Fake>, first_request: u64) -> io::Result<Option<Box<dyn Storage>>> {
    let source = RangeSource::with_transport("http://h/t", Arc::clone(fake), TableKind::Distances)
        .first_request(first_request);
    source
        .open(sector())
        .map_err(|e| io::Error::other(crate::error::chain(&e)))
}

fn read(table: &dyn Storage, offset: u64, len: usize) -> io::Result<Vec<u8>> {
    let mut buf = vec![0; len];
    table.read_at(offset, &mut buf, ReadHint::Block)?;
    Ok(buf)
}

fn bytes(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 7 % 251) as u8).collect()
}

#[test]
fn a_table_is_read_by_the_ranges_it_needs() {
    let file = bytes(1000);
    let fake = Fake::new(file.clone());
    let table = open(&fake, 0).unwrap().unwrap();
    assert_eq!(table.len(), 1000);
    assert_eq!(fake.asked(), [(0, 127)]);
    assert_eq!(read(&*table, 10, 20).unwrap(), &file[10..30]);
    assert_eq!(read(&*table, 500, 100).unwrap(), &file[500..600]);
    assert_eq!(fake.asked(), [(500, 599)]);
    let past = read(&*table, 990, 20).unwrap_err();
    assert!(past.to_string().contains("past the end of 1000"), "{past}");
    // A short file: the opening request is answered up to its end.
    let fake = Fake::new(file[..50].to_vec());
    assert_eq!(open(&fake, 4096).unwrap().unwrap().len(), 50);
    // No such table.
    fake.set(Serve::Status(404));
    assert!(open(&fake, 0).unwrap().is_none());
}

#[test]
fn replies_other_than_the_range_asked_for_are_refused() {
    let fake = Fake::new(bytes(1000));
    let table = open(&fake, 0).unwrap().unwrap();
    let refused = |serve, what: &str| {
        fake.set(serve);
        let e = read(&*table, 500, 100).unwrap_err();
        assert!(e.to_string().contains(what), "{e}");
        e
    };
    refused(
        Serve::Shifted,
        "the server sent bytes 501-600 for bytes 500-599",
    );
    refused(Serve::NoTotal, "with Content-Range `bytes 500-599/*`");
    refused(Serve::Short, "the server sent 50 bytes of 100");
    refused(Serve::Whole, "the server ignores range requests");
    let e = refused(Serve::Status(503), "HTTP 503");
    assert!(e.get_ref().is_some_and(|inner| inner.is::<HttpStatus>()));
    // Gone after opening: an error, not a missing table.
    refused(Serve::Status(404), "HTTP 404");
    fake.set(Serve::Ranges);
    *fake.etag.lock().unwrap() = "\"b\"";
    refused(Serve::Ranges, "ETag \"b\", \"a\" when opened");
    fake.file.lock().unwrap().push(0);
    refused(Serve::Ranges, "1001 bytes long, 1000 when opened");
}

#[test]
fn a_server_that_ignores_ranges_serves_only_small_tables() {
    let file = bytes(5000);
    let fake = Fake::new(file.clone());
    fake.set(Serve::Whole);
    let table = open(&fake, 0).unwrap().unwrap();
    // Kept whole: no request after the first.
    assert_eq!(read(&*table, 4000, 1000).unwrap(), &file[4000..]);
    assert_eq!(fake.asked(), [(0, 127)]);
    let big = Fake::new(vec![0; WHOLE_FILE_LIMIT as usize + 1]);
    big.set(Serve::Whole);
    let e = open(&big, 0).err().unwrap();
    assert!(
        e.to_string()
            .contains("HTTP 200 with the whole file, 1048577 bytes"),
        "{e}"
    );
}

/// Blocks in memory, counted.
#[derive(Default)]
struct Memory {
    blocks: Mutex<HashMap<String, Vec<u8>>>,
    hits: Mutex<u32>,
}

impl BlockCache for Memory {
    fn get(&self, key: &str, buf: &mut [u8]) -> bool {
        match self.blocks.lock().unwrap().get(key) {
            Some(block) if block.len() == buf.len() => {
                buf.copy_from_slice(block);
                *self.hits.lock().unwrap() += 1;
                true
            }
            _ => false,
        }
    }

    fn put(&self, key: &str, block: &[u8]) {
        self.blocks
            .lock()
            .unwrap()
            .insert(key.to_string(), block.to_vec());
    }

    fn remove(&self, key: &str) {
        self.blocks.lock().unwrap().remove(key);
    }
}

#[test]
fn blocks_go_through_the_block_cache_when_their_checksums_match() {
    // A header, an index of two blocks of 300 and 200 bytes, the blocks.
    let start = HEADER_LEN + 2 * INDEX_ENTRY_LEN;
    let mut file = bytes(start + 500);
    let ends = [start + 300, start + 500];
    for (i, (from, to)) in [(start, ends[0]), (ends[0], ends[1])]
        .into_iter()
        .enumerate()
    {
        let crc = block_crc(i as u32, &file[from..to]);
        let at = HEADER_LEN + i * INDEX_ENTRY_LEN;
        file[at..at + 8].copy_from_slice(&(to as u64).to_le_bytes());
        file[at + 8..at + 12].copy_from_slice(&crc.to_le_bytes());
    }
    let cache = Arc::new(Memory::default());
    let fake = Fake::new(file.clone());
    let opened = || {
        let table =
            RangeSource::with_transport("http://h/t/", Arc::clone(&fake), TableKind::Distances)
                .first_request(0)
                .block_cache(cache.clone())
                .open(sector())
                .unwrap()
                .unwrap();
        let mut index = vec![0; 2 * INDEX_ENTRY_LEN];
        table
            .read_at(HEADER_LEN as u64, &mut index, ReadHint::BlockIndex)
            .unwrap();
        table
    };
    let table = opened();
    assert_eq!(
        read(&*table, ends[0] as u64, 200).unwrap(),
        &file[ends[0]..]
    );
    assert_eq!(cache.blocks.lock().unwrap().len(), 1);
    // Another process: the block from the cache, no request for it.
    let table = opened();
    fake.asked();
    assert_eq!(
        read(&*table, ends[0] as u64, 200).unwrap(),
        &file[ends[0]..]
    );
    assert_eq!((fake.asked(), *cache.hits.lock().unwrap()), (vec![], 1));
    // A damaged entry is replaced by the block fetched again.
    for block in cache.blocks.lock().unwrap().values_mut() {
        block[0] ^= 1;
    }
    assert_eq!(
        read(&*table, ends[0] as u64, 200).unwrap(),
        &file[ends[0]..]
    );
    assert_eq!(fake.asked().len(), 1);
    assert_eq!(
        cache.blocks.lock().unwrap().values().next().unwrap(),
        &file[ends[0]..]
    );
    // A damaged block is not kept.
    let mut damaged = file.clone();
    damaged[start] ^= 1;
    *fake.file.lock().unwrap() = damaged;
    let table = opened();
    read(&*table, start as u64, 300).unwrap();
    assert_eq!(cache.blocks.lock().unwrap().len(), 1);
}
