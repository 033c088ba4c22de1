#!/usr/bin/env python3
"""Times `tablejudge camouflage read` of the same photos with one or more builds, each read
pinned to CPU 0, and prints each build's total of the per-photo minimum over REPS rounds (the
minimum filters a shared machine's noise; rounds alternate the builds photo by photo).
Usage (from the repo root): python3 tools/camouflage-read-check/time_reads.py BIN[,BIN...] LIST [REPS]
where LIST is a file with one photo path per line; REPS defaults to 3."""
import subprocess, sys, time

builds = sys.argv[1].split(',')
photos = [line.strip() for line in open(sys.argv[2]) if line.strip()]
reps = int(sys.argv[3]) if len(sys.argv) > 3 else 3
best = {b: [float('inf')] * len(photos) for b in builds}
for _ in range(reps):
    for i, photo in enumerate(photos):
        for b in builds:
            t = time.perf_counter()
            subprocess.run(['taskset', '-c', '0', b, 'camouflage', 'read', photo,
                            '--set', 'models/camouflage/reference.json'], capture_output=True)
            best[b][i] = min(best[b][i], time.perf_counter() - t)
for b in builds:
    print(b, f'{sum(best[b]):.3f} s for {len(photos)} photos')
