//! The cache of decoded blocks shared by the probes of a tablebase: a
//! bounded number of bytes, the least recently used blocks evicted first.

use crate::error::FileError;
use moulin_core::table::{Block, PlaySide};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Mutex, MutexGuard};

const SHARDS: usize = 16;

/// Decoded blocks, least recently used evicted first, in shards so that
/// threads probing different blocks rarely wait for each other.
pub(super) struct BlockCache {
    shards: Vec<Mutex<Shard>>,
    shard_bytes: usize,
}

#[derive(Default)]
struct Shard {
    blocks: HashMap<(u32, u32), (Block, u64), BuildHasherDefault<KeyHasher>>,
    bytes: usize,
    clock: u64,
}

/// A multiplicative hash for the (table, block) keys: SipHash's resistance
/// to chosen keys is not needed here and costs a good part of a warm probe.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.write_u64(n as u64);
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(26) ^ n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

impl BlockCache {
    pub(super) fn new(bytes: usize) -> BlockCache {
        BlockCache {
            shards: (0..SHARDS).map(|_| Mutex::default()).collect(),
            shard_bytes: bytes / SHARDS,
        }
    }

    fn shard(&self, key: (u32, u32)) -> MutexGuard<'_, Shard> {
        let h = ((key.0 as u64) << 32 | key.1 as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let shard = &self.shards[(h >> 60) as usize % SHARDS];
        // A panic while holding the lock cannot leave a shard inconsistent.
        shard.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The `i`-th code of a block, decoding the block with `load` on a miss.
    pub(super) fn code(
        &self,
        key: (u32, u32),
        i: usize,
        load: impl FnOnce() -> Result<Block, FileError>,
    ) -> Result<u16, FileError> {
        self.with(key, load, |block| block.code(i))?
            .ok_or_else(|| FileError::Corrupt(format!("slot {i} missing from block {}", key.1)))
    }

    /// The `i`-th code of an outcome block and, when it is an outcome of
    /// `side` and `ranked`, how many slots of `side` come before it
    /// (`Block::rank`); decodes the block with `load` on a miss.
    pub(super) fn code_and_rank(
        &self,
        key: (u32, u32),
        i: usize,
        side: PlaySide,
        ranked: bool,
        load: impl FnOnce() -> Result<Block, FileError>,
    ) -> Result<(u16, Option<usize>), FileError> {
        self.with(key, load, |block| {
            let code = block.code(i)?;
            let rank = if ranked && moulin_core::play::side_of(code).is_some_and(|s| side.holds(s))
            {
                block.ensure_ranks(side);
                Some(block.rank(side, i)?)
            } else {
                None
            };
            Some((code, rank))
        })?
        .ok_or_else(|| FileError::Corrupt(format!("slot {i} missing from block {}", key.1)))
    }

    /// `f` of a block, decoding the block with `load` on a miss; `f` may
    /// add to the block (its rank directory), and the cache counts it.
    fn with<T>(
        &self,
        key: (u32, u32),
        load: impl FnOnce() -> Result<Block, FileError>,
        f: impl FnOnce(&mut Block) -> T,
    ) -> Result<T, FileError> {
        {
            let mut shard = self.shard(key);
            shard.clock += 1;
            let now = shard.clock;
            if let Some((block, used)) = shard.blocks.get_mut(&key) {
                *used = now;
                let before = block.memory();
                let found = f(block);
                let grown = block.memory() - before;
                shard.bytes += grown;
                return Ok(found);
            }
        }
        let mut block = load()?;
        let found = f(&mut block);
        if block.memory() <= self.shard_bytes {
            let mut shard = self.shard(key);
            shard.bytes += block.memory();
            let now = shard.clock;
            if let Some((old, _)) = shard.blocks.insert(key, (block, now)) {
                shard.bytes -= old.memory();
            }
            while shard.bytes > self.shard_bytes {
                let oldest = shard.blocks.iter().min_by_key(|(_, (_, used))| *used);
                let Some((&k, _)) = oldest else { break };
                if let Some((old, _)) = shard.blocks.remove(&k) {
                    shard.bytes -= old.memory();
                }
            }
        }
        Ok(found)
    }
}
