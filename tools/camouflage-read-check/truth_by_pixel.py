#!/usr/bin/env python3
"""Compares Camouflage readings with rendered photos' .truth.json by pixel position (where
check.py matches pictures on the lattice). Run from the repo root; BIN defaults to
target/release/tablejudge (env TABLEJUDGE). Photos come from `eval camouflage ... --keep DIR`.

  truth_by_pixel.py centres "DIR/game_00*/frame_00[0-9][05].jpg"
      centres missed (a visible truth centre with no centre read within 8 px) and extra
      (a centre read 8 px or more from every truth centre), in total and by deck
      (VERBOSE=1: also each photo with a centre missed or extra, at which pixels)
  truth_by_pixel.py squares "GLOB"
      pattern squares read right and wrong (nearest truth square within 0.3 of a square),
      and how many of each a higher confidence to tell a pattern would have made unknown
  truth_by_pixel.py ink OFFSETS.tsv
      quantiles of the ink's distance from the square's middle for real and for false
      centres; the lines come from `cargo run --release -p tablejudge-vision --example
      ink_offsets -- PHOTO... > OFFSETS.tsv`
  truth_by_pixel.py skipped "DIR/game_00*"
      replays each game (`camouflage replay --mode cover --json`) and counts the photos
      skipped, with a hand in them and without, listing the latter
"""
import glob, json, math, os, subprocess, sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

BIN = os.environ.get('TABLEJUDGE', 'target/release/tablejudge')
SET = os.environ.get('SET', 'models/camouflage/reference.json')
VERBOSE = os.environ.get('VERBOSE') == '1'

def truth(photo):
    return json.load(open(photo.replace('.jpg', '.truth.json')))

def read(photo):
    p = subprocess.run([BIN, 'camouflage', 'read', photo, '--set', SET, '--json'],
                       capture_output=True, text=True)
    try:
        return json.loads(p.stdout)
    except ValueError:
        return {}

def readings(pattern):
    photos = sorted(glob.glob(pattern))
    with ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        return list(zip(photos, pool.map(read, photos)))

def dist(a, b):
    return math.hypot(a[0] - b[0], a[1] - b[1])

def has_hand(t):
    return any(q['visible'] < 1 for q in t['squares'])

def centres(pattern):
    missed, total, extra = Counter(), Counter(), 0
    for photo, r in readings(pattern):
        t = truth(photo)
        read_px = [c['px'] for c in r.get('centres', [])]
        real = [q for q in t['squares'] if q['square'] == '*']
        lost = []
        for q in real:
            if q['visible'] >= 1:
                total[q['deck']] += 1
                if not any(dist(p, q['center']) < 8 for p in read_px):
                    missed[q['deck']] += 1
                    lost.append(q['center'])
        false = [p for p in read_px if all(dist(p, q['center']) >= 8 for q in real)]
        extra += len(false)
        if VERBOSE and (lost or false):
            px = lambda ps: ' '.join('%.0f,%.0f' % tuple(p) for p in ps)
            print(photo, 'missed', px(lost), 'extra', px(false))
    print('centres missed', sum(missed.values()), 'of', sum(total.values()), 'extra', extra)
    print('missed / total by deck', {d: (missed[d], total[d]) for d in sorted(total)})

def homography(src, dst):
    # The 3 × 3 map from four points to four, solved directly (8 unknowns).
    a, b = [], []
    for (x, y), (u, v) in zip(src, dst):
        a.append([x, y, 1, 0, 0, 0, -u * x, -u * y]); b.append(u)
        a.append([0, 0, 0, x, y, 1, -v * x, -v * y]); b.append(v)
    n = 8
    m = [row[:] + [rhs] for row, rhs in zip(a, b)]
    for i in range(n):
        piv = max(range(i, n), key=lambda r: abs(m[r][i]))
        m[i], m[piv] = m[piv], m[i]
        for r in range(n):
            if r != i and m[i][i]:
                f = m[r][i] / m[i][i]
                m[r] = [x - f * y for x, y in zip(m[r], m[i])]
    h = [m[i][n] / m[i][i] for i in range(n)] + [1.0]
    return lambda x, y: ((h[0] * x + h[1] * y + h[2]) / (h[6] * x + h[7] * y + 1),
                         (h[3] * x + h[4] * y + h[5]) / (h[6] * x + h[7] * y + 1))

def squares(pattern):
    right, wrong = [], []
    for photo, r in readings(pattern):
        corners = r.get('corners')
        if not corners or any(v is None or v != v for c in corners for v in c):
            continue
        rows, cols = r['rows'], r['cols']
        to_px = homography([(-0.5, -0.5), (cols - 0.5, -0.5), (cols - 0.5, rows - 0.5),
                            (-0.5, rows - 0.5)], corners)
        side = dist(corners[0], corners[1]) / cols
        real = [q for q in truth(photo)['squares'] if q['visible'] >= 1]
        for s in r['squares']:
            if s['kind'] != 'pattern':
                continue
            p = to_px(s['col'], s['row'])
            q = min(real, key=lambda q: dist(p, q['center']), default=None)
            if q is None or dist(p, q['center']) > 0.3 * side:
                continue
            (right if q['square'] == s['key'] else wrong).append(s['confidence'])
    print('pattern squares read right', len(right), 'wrong', len(wrong))
    for told in (2 / 3, 0.7, 0.75, 0.8, 0.85, 0.9):
        print('told at %.3f: right made unknown %d, wrong still told %d'
              % (told, sum(c < told for c in right), sum(c >= told for c in wrong)))

def ink(tsv):
    real, false = [], []
    cache = {}
    for line in open(tsv):
        photo, x, y, off = line.split('\t')
        if photo not in cache:
            cache[photo] = [q['center'] for q in truth(photo)['squares'] if q['square'] == '*']
        near = any(dist((float(x), float(y)), c) < 8 for c in cache[photo])
        (real if near else false).append(float(off))
    for name, offs in (('real', sorted(real)), ('false', sorted(false))):
        q = lambda p: offs[min(len(offs) - 1, int(p * len(offs)))] if offs else float('nan')
        print(name, len(offs), 'ink off the middle: median %.3f, 90%% %.3f, 99%% %.3f, max %.3f'
              % (q(0.5), q(0.9), q(0.99), q(1.0)))

def skipped(pattern):
    counts, without_hand = Counter(), []
    for game in sorted(glob.glob(pattern)):
        p = subprocess.run([BIN, 'camouflage', 'replay', game, '--mode', 'cover', '--set', SET,
                            '--json'], capture_output=True, text=True)
        for ph in json.loads(p.stdout)['photos']:
            if ph['status'] != 'skipped':
                continue
            hand = has_hand(truth(os.path.join(game, ph['file'])))
            counts[hand] += 1
            if not hand:
                without_hand.append((os.path.basename(game), ph['file'], ph['reason'][:80]))
    print('photos skipped with a hand', counts[True], 'without', counts[False])
    for w in without_hand:
        print(*w)

{'centres': centres, 'squares': squares, 'ink': ink, 'skipped': skipped}[sys.argv[1]](sys.argv[2])
