#!/usr/bin/env python3
"""Times `tablejudge camouflage replay` of the same photo series with two builds on one
thread (RAYON_NUM_THREADS=1), each series with both builds in turn, and says whether their
`--json` outputs are byte-identical. Prints each build's total seconds.
Usage (from the repo root):
    python3 tools/camouflage-read-check/time_replays.py BIN_A BIN_B SERIES_DIR...
where each SERIES_DIR is a game's photos, e.g. from
`tablejudge eval camouflage --set models/camouflage/reference.json --n 40 --seed 3 --keep DIR`
(DIR/game_0027 ...)."""
import os, subprocess, sys, time

builds, series = sys.argv[1:3], sys.argv[3:]
total = {b: 0.0 for b in builds}
env = dict(os.environ, RAYON_NUM_THREADS='1')
for game in series:
    outputs = []
    for b in builds:
        t = time.perf_counter()
        out = subprocess.run([b, 'camouflage', 'replay', '--set', 'models/camouflage/reference.json',
                              '--mode', 'cover', '--json', game],
                             capture_output=True, env=env).stdout
        total[b] += time.perf_counter() - t
        outputs.append(out)
    print(game, 'same' if outputs[0] == outputs[1] else 'DIFFERENT')
for b in builds:
    print(b, f'{total[b]:.1f} s')
