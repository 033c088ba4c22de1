#!/usr/bin/env bash
# The main job on the bundled inputs: validate the shipped sets and judge with them.
# Usage: scripts/demo.sh TABLEJUDGE_BINARY OUT_DIR
set -uo pipefail
bin=${1:?usage: demo.sh TABLEJUDGE_BINARY OUT_DIR}
out=${2:?usage: demo.sh TABLEJUDGE_BINARY OUT_DIR}
mkdir -p "$out"
failed=0

step() { printf '\n== %s\n' "$*"; }
run() {
  printf '$ tablejudge %s\n' "${*:2}"
  "$@"; local rc=$?
  printf '(exit %d)\n' "$rc"
  return "$rc"
}

step "Shipped component sets"
for f in models/layers/reference.json models/camouflage/reference.json ../shared/palettes/colorchecker-classic.json; do
  [ -f "$f" ] || continue
  run "$bin" set check "$f" || failed=1
done

# A verdict (0 pass, 1 fail, 3 undecided) is a result; only bad input (2) or a crash fails the demo.
judge() {
  printf '$ tablejudge %s\n' "${*:2}"
  "$@"; local rc=$?
  printf '(exit %d)\n' "$rc"
  case $rc in 0|1|3) return 0 ;; *) return 1 ;; esac
}

step "Layers+: judging the bundled photos (annotated images in $out/)"
judge "$bin" layers verify fixtures/reference-3-04-with-mission-card.jpg --set models/layers/reference.json \
  --mission-in-photo --annotate "$out/reference-3-04-with-mission-card.png" || failed=1
judge "$bin" layers verify fixtures/reference-4-02-near-miss.jpg --set models/layers/reference.json \
  --mission 4-02 --annotate "$out/reference-4-02-near-miss.png" || failed=1
judge "$bin" layers verify fixtures/parlour-2-03.jpg --set models/layers/parlour.json \
  --mission 2-03 --annotate "$out/parlour-2-03.png" || failed=1
judge "$bin" layers read fixtures/parlour-2-03.jpg --set models/layers/parlour.json || failed=1

step "Layers+: a batch over every bundled photo, each judged against the mission card beside the stack"
# Photos without a mission card in them are undecided and say so; report.html lists them all.
# A batch never overwrites its results (it would take --resume), so the demo starts afresh.
rm -rf "$out/batch"
judge "$bin" batch fixtures --game layers --set models/layers/reference.json --mission-in-photo \
  --out "$out/batch" || failed=1

step "Layers+: how to build one mission of each level"
for m in 2-01 3-01 4-01 5-01; do
  run "$bin" layers solve --set models/layers/reference.json --mission "$m" || failed=1
done
run "$bin" layers solve --set models/layers/reference.json --mission 5-01 --json >"$out/solve-5-01.json" && echo "wrote $out/solve-5-01.json"

exit "$failed"
