#!/usr/bin/env bash
# Regenerates include/moulin.h from src/lib.rs with cbindgen (used as a
# library by the test that also checks that the committed header is current).
set -euo pipefail
cd "$(dirname "$0")"
MOULIN_WRITE_HEADER=1 cargo test -p moulin-c --test header
