"""Probes per second from Python.

    python bindings/python/examples/bench.py DIR POSITIONS

reads the positions (one per line; `cargo run --release -p moulin-c
--example bench -- DIR POSITIONS` writes 100,000 random ones), probes them
all once to warm the cache, then times a second pass, of `probe(str)` and
of `probe(Position)` with the positions parsed beforehand.
"""

import sys
import time

import moulin


def main() -> None:
    directory, file = sys.argv[1:3]
    with open(file) as f:
        texts = [line.strip() for line in f if line.strip()]
    tb = moulin.Tablebase(directory)
    probe = tb.probe
    for text in texts:
        probe(text)
    start = time.perf_counter()
    for text in texts:
        probe(text)
    from_text = len(texts) / (time.perf_counter() - start)
    positions = [moulin.Position(t) for t in texts]
    start = time.perf_counter()
    for p in positions:
        probe(p)
    from_position = len(texts) / (time.perf_counter() - start)
    print(
        f"python: {len(texts)} positions, probe(str): {from_text:.0f} probes/s; "
        f"probe(Position): {from_position:.0f} probes/s"
    )


if __name__ == "__main__":
    main()
