#!/usr/bin/env bash
# Builds the page's WebAssembly probe (web/wasm, crate moulin-wasm) and copies
# it to web/moulin_wasm.wasm, where the page's worker loads it. Then
# `moulin serve` (or any static host with the tables under web/tables/)
# serves the page.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
    rustup target add wasm32-unknown-unknown
fi
# No debug information, aborting panics (what the target supports), and
# optimised for size: probes are light, downloads are not.
CARGO_PROFILE_RELEASE_DEBUG=false \
CARGO_PROFILE_RELEASE_PANIC=abort \
CARGO_PROFILE_RELEASE_OPT_LEVEL=3 \
CARGO_PROFILE_RELEASE_LTO=true \
CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1 \
CARGO_PROFILE_RELEASE_STRIP=true \
    cargo build --release --target wasm32-unknown-unknown -p moulin-wasm
cp "${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/release/moulin_wasm.wasm" web/moulin_wasm.wasm
echo "web/moulin_wasm.wasm: $(wc -c < web/moulin_wasm.wasm) bytes"
