#!/usr/bin/env bash
# Builds the fuzz targets and runs each for SECONDS (default 60) on a copy of its seed corpus.
#
#   fuzz/run.sh [SECONDS] [TARGET...]      # `make fuzz` runs 60 s each, CI 30 s each
#
# Exits non-zero when a target crashes (a panic, a timeout on one input or running out of
# memory); the input that did it is in fuzz/artifacts/TARGET/, and the command to reproduce
# it is printed. New inputs go to a temporary folder, so fuzz/corpus stays as committed.
#
# Toolchain: the default one (stable), with `-s none` (no sanitizer), which needs no nightly
# and no RUSTC_BOOTSTRAP: the crates under test forbid unsafe code, so AddressSanitizer
# would add little but build and run time. FUZZ_TOOLCHAIN=+nightly FUZZ_SANITIZER=address
# runs them under ASan instead.
set -euo pipefail

seconds=${1:-60}
shift || true
case $seconds in
    '' | *[!0-9]*) echo "usage: $0 [SECONDS] [TARGET...]" >&2; exit 2 ;;
esac
all=(set_files layers_verify camouflage_moves photo)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

toolchain=${FUZZ_TOOLCHAIN:-}
sanitizer=${FUZZ_SANITIZER:-none}
export CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-2}
# OpenCV refuses to decode photos over 4 megapixels (the photo target sets it too).
export OPENCV_IO_MAX_IMAGE_PIXELS=${OPENCV_IO_MAX_IMAGE_PIXELS:-4194304}
export RUST_BACKTRACE=${RUST_BACKTRACE:-1}

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "== installing cargo-fuzz"
    cargo install cargo-fuzz --locked --version 0.13.2
fi

fuzz() {
    # shellcheck disable=SC2086 # $toolchain is empty or one word
    cargo $toolchain fuzz "$@"
}

echo "== building ${targets[*]} (sanitizer: $sanitizer)"
start=$(date +%s)
if [ $# -eq 0 ]; then
    fuzz build --fuzz-dir fuzz -s "$sanitizer" # every target, in one cargo run
else
    for t in "${targets[@]}"; do
        fuzz build --fuzz-dir fuzz -s "$sanitizer" "$t"
    done
fi
echo "== built in $(($(date +%s) - start)) s"

# Per target: the largest input (set files and photos need room), the seconds one input may
# take before it counts as a hang, and the memory limit.
options() {
    case $1 in
        set_files) echo "-max_len=32768 -timeout=20 -rss_limit_mb=2048" ;;
        # Structured inputs (the arbitrary crate): full length from the start, so that short
        # runs reach big stacks and boards.
        layers_verify | camouflage_moves) echo "-max_len=1024 -len_control=0 -timeout=20 -rss_limit_mb=2048" ;;
        photo) echo "-max_len=32768 -timeout=30 -rss_limit_mb=3072" ;;
        *) echo "-timeout=20" ;;
    esac
}

work=$(mktemp -d "${TMPDIR:-/tmp}/tablejudge-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
failed=()
for t in "${targets[@]}"; do
    echo "== $t: ${seconds} s"
    mkdir -p "$work/$t" "fuzz/corpus/$t"
    # The first folder receives new inputs; the committed corpus is only read. The decoders'
    # warnings on broken photos (libjpeg, libpng, OpenCV's; thousands) are left out of the log.
    set +e
    # shellcheck disable=SC2046 # the options are words
    fuzz run --fuzz-dir fuzz -s "$sanitizer" "$t" "$work/$t" "fuzz/corpus/$t" -- \
        -max_total_time="$seconds" -print_final_stats=1 $(options "$t") 2>&1 |
        { grep -v -E '^(Corrupt JPEG data|Premature end of JPEG file|Invalid SOS parameters|libpng (warning|error)|imdecode_\()' || true; }
    status=${PIPESTATUS[0]}
    set -e
    if [ "$status" -eq 0 ]; then
        echo "== $t: no crash ($(find "$work/$t" -type f | wc -l) new inputs)"
    else
        echo "== $t: CRASHED; the input is in fuzz/artifacts/$t/; reproduce with"
        echo "   cargo $toolchain fuzz run --fuzz-dir fuzz -s $sanitizer $t fuzz/artifacts/$t/<file>"
        failed+=("$t")
    fi
done

if [ ${#failed[@]} -gt 0 ]; then
    echo "== fuzzing found crashes in: ${failed[*]}" >&2
    exit 1
fi
echo "== fuzzing: ${targets[*]}: no crash in ${seconds} s each"
