#!/usr/bin/env bash
# Coverage-guided fuzzing (cargo-fuzz, libFuzzer) of the table reader and
# the position and move parsers: the targets of fuzz/fuzz_targets/.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]   run each target (default: table,
#                                           position, moves) for SECONDS
#                                           (default 60) over the corpus
#   scripts/fuzz.sh --merge DIR [TARGET...] add the inputs of DIR/<target>/
#                                           that bring new coverage to
#                                           fuzz/corpus/<target>/
#
# Works on stable Rust: RUSTC_BOOTSTRAP=1 lets it take the sanitizer flags
# cargo-fuzz passes. Installs cargo-fuzz if missing. A crash, a panic, an
# allocation above 256 MB at once (-malloc_limit_mb: what catches a reader
# reserving what a forged header claims), a resident size above 512 MB
# (AddressSanitizer's shadow and quarantine take some 150 MB of it while
# the inputs' own heap stays under 40 MB) or an input taking over 10 s is a
# failure: the reproducer is left in
# fuzz/artifacts/<target>/ and the script exits non-zero. New inputs found
# go to a scratch corpus (target/fuzz-corpus/), never into the committed one.
# FUZZ_ARGS adds libFuzzer options (e.g. FUZZ_ARGS=-max_len=16384).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v cargo >/dev/null 2>&1 && [ -f "$HOME/.cargo/env" ]; then
    # shellcheck disable=SC1091
    . "$HOME/.cargo/env"
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked
fi
export RUSTC_BOOTSTRAP=1
# ASan's quarantine of freed memory would count against the RSS limit.
export ASAN_OPTIONS="${ASAN_OPTIONS:-quarantine_size_mb=16}"

merge=""
if [ "${1:-}" = "--merge" ]; then
    merge="${2:?usage: scripts/fuzz.sh --merge DIR [TARGET...]}"
    shift 2
fi
seconds=60
if [ $# -gt 0 ] && [[ "$1" =~ ^[0-9]+$ ]]; then
    seconds="$1"
    shift
fi
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(table position moves)

limits=(-malloc_limit_mb=256 -rss_limit_mb=512 -timeout=10)
failed=()
for t in "${targets[@]}"; do
    dict=()
    [ "$t" = table ] || dict=(-dict=fuzz/text.dict)
    mkdir -p "fuzz/corpus/$t" "fuzz/regressions/$t"
    echo "== fuzz build $t"
    cargo fuzz build "$t"
    if [ -n "$merge" ]; then
        echo "== merge $merge/$t into fuzz/corpus/$t"
        cargo fuzz run "$t" "fuzz/corpus/$t" "$merge/$t" -- -merge=1 "${limits[@]}" "${dict[@]}"
        continue
    fi
    scratch="target/fuzz-corpus/$t"
    mkdir -p "$scratch"
    echo "== fuzz $t for ${seconds}s"
    # shellcheck disable=SC2086 # FUZZ_ARGS is split into options on purpose.
    if ! cargo fuzz run "$t" "$scratch" "fuzz/corpus/$t" "fuzz/regressions/$t" -- \
        -max_total_time="$seconds" -print_final_stats=1 "${limits[@]}" "${dict[@]}" ${FUZZ_ARGS:-}; then
        failed+=("$t")
    fi
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz: failures in ${failed[*]} (reproducers in fuzz/artifacts/)" >&2
    exit 1
fi
echo "fuzz: no failure in ${targets[*]}"
