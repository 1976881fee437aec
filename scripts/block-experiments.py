#!/usr/bin/env python3
"""How much smaller could one table file be? Decodes every block of a
`.mtw` or `.mtd` (docs/format.md) and compresses the same bytes again:
in blocks 1, 4, 16 and 64 times larger, and in blocks of today's size with
a zstd dictionary trained on the file's own blocks (its bytes counted).
For an outcome table under the rule (encoding 4) it also gives the
empirical entropy of the outcomes in slot order: order 0, then given the
1, 2 and 3 outcomes before each.

    pip install zstandard numpy
    scripts/block-experiments.py data/play-n50/6v7.mtw [--level 13]
"""
import argparse
import random
import struct

import numpy as np
import zstandard as zs


def blocks(path):
    data = open(path, "rb").read()
    encoding = data[21]
    _, count = struct.unpack_from("<II", data, 24)
    start, out = 128 + 12 * count, []
    decoder = zs.ZstdDecompressor()
    for i in range(count):
        (end,) = struct.unpack_from("<Q", data, 128 + 12 * i)
        out.append(decoder.decompress(data[start:end], max_output_size=1 << 20))
        start = end
    return encoding, out, len(data)


def compressed(chunks, level, dictionary=None):
    c = zs.ZstdCompressor(level=level, dict_data=dictionary, write_content_size=False,
                          write_checksum=False, write_dict_id=False)
    # 12 bytes of block index per block, as in the file.
    return sum(len(c.compress(b)) + 12 for b in chunks if b)


def entropy_bytes(outcomes, context, kinds):
    counts = np.bincount(context * 5 + outcomes, minlength=kinds * 5).reshape(kinds, 5)
    counts = counts.astype(float)
    totals = counts.sum(1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(counts > 0, counts / totals, 1)
    return -(counts * np.log2(p)).sum() / 8


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file")
    ap.add_argument("--level", type=int, default=13)
    args = ap.parse_args()
    encoding, bl, length = blocks(args.file)
    print(f"{args.file}: encoding {encoding}, {len(bl)} blocks, {length} bytes, "
          f"{sum(map(len, bl))} decoded; zstd level {args.level}")
    base = compressed(bl, args.level)
    for k in (1, 4, 16, 64):
        size = compressed([b"".join(bl[i:i + k]) for i in range(0, len(bl), k)], args.level)
        print(f"  blocks x{k:<3} {size:>12}  {100 * size / base:6.1f} %")
    random.seed(1)
    sample = [b for b in bl if b]
    sample = random.sample(sample, min(len(sample), 4000))
    for size in (16384, 65536):
        try:
            d = zs.train_dictionary(size, sample, level=args.level)
        except zs.ZstdError as e:
            print(f"  dictionary {size}: {e}")
            continue
        total = compressed(bl, args.level, d) + len(d.as_bytes())
        print(f"  dictionary {size:>6} {total:>10}  {100 * total / base:6.1f} %  (dictionary counted)")
    if encoding == 4:
        lut = np.array([[i % 5, i // 5 % 5, i // 25 % 5] for i in range(256)], dtype=np.uint8)
        x = np.concatenate([lut[np.frombuffer(b, np.uint8)].reshape(-1) for b in bl]).astype(np.int32)
        p1, p2, p3 = np.roll(x, 1), np.roll(x, 2), np.roll(x, 3)
        print(f"  outcome entropy, bytes: order 0 {entropy_bytes(x, np.zeros_like(x), 1):.0f}, "
              f"order 1 {entropy_bytes(x, p1, 5):.0f}, order 2 {entropy_bytes(x, p1 * 5 + p2, 25):.0f}, "
              f"order 3 {entropy_bytes(x, (p1 * 5 + p2) * 5 + p3, 125):.0f}")


if __name__ == "__main__":
    main()
