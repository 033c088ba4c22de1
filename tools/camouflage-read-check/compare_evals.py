#!/usr/bin/env python3
"""Compares two `tablejudge eval camouflage ... --json` outputs game by game: prints each
run's summary, then every game whose found, legality, exact-score, trust or
illegal-judged-legal figures differ, with both runs' reasons. No game printed means the two
runs judged every game alike.
Usage: python3 tools/camouflage-read-check/compare_evals.py BEFORE.json AFTER.json"""
import json, sys

KEYS = ['found', 'plays', 'legality_right', 'scores_exact', 'trusted_right', 'trusted_wrong',
        'undecided', 'illegal_judged_legal', 'photos_per_s', 'replay_s_max']
runs = [(path, json.load(open(path))) for path in sys.argv[1:3]]
for path, run in runs:
    s = run['summary']
    print(path, {k: round(s[k], 2) if isinstance(s[k], float) else s[k] for k in KEYS})
judged = lambda g: (g['found'], g['legality_right'], g['scores_exact'], g['trusted'],
                    g['illegal_judged_legal'])
for a, b in zip(runs[0][1]['games'], runs[1][1]['games']):
    if judged(a) != judged(b):
        print(a['index'], a['plays'], judged(a), judged(b))
        print('   ', str(a['reason'])[:150])
        print('   ', str(b['reason'])[:150])
