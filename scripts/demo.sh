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

step "Layers+: how to build one mission of each level"
for m in 2-01 3-01 4-01 5-01; do
  run "$bin" layers solve --set models/layers/reference.json --mission "$m" || failed=1
done
run "$bin" layers solve --set models/layers/reference.json --mission 5-01 --json >"$out/solve-5-01.json" && echo "wrote $out/solve-5-01.json"

exit "$failed"
