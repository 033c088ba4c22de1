#!/usr/bin/env python3
"""Run `BINARY layers verify` on every rendered scene of DIR and count outcomes.

Usage: evaluate.py SET.json DIR [--binary target/release/tablejudge] [--workers 2] [--csv FILE]

Outcomes: right (match on a matching scene, mismatch on a near miss), undecided (exit 3),
false_accept (match on a near miss), false_reject (mismatch on a matching scene),
error (exit 2, any other status, unparsable output or timeout).
"""
import argparse
import collections
import csv
import glob
import json
import math
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor


def rot_cw(g):
    R = len(g)
    return ["".join(g[R - 1 - c][r] for c in range(R)) for r in range(len(g[0]))]


def grid_diff(a, b):
    """min over quarter-turns of b of the number of differing cells (None if shapes differ)."""
    best = None
    for _ in range(4):
        if len(a) == len(b) and len(a[0]) == len(b[0]):
            d = sum(x != y for ra, rb in zip(a, b) for x, y in zip(ra, rb))
            best = d if best is None else min(best, d)
        b = rot_cw(b)
    return best


def corner_err(read, truth):
    """max corner distance, minimised over cyclic order (the reader may start at any corner)."""
    best = None
    for s in range(4):
        e = max(math.dist(read[(i + s) % 4], truth[i]) for i in range(4))
        best = e if best is None else min(best, e)
    return best


def run_one(binary, setpath, jpg, timeout):
    truth = json.load(open(jpg[:-4] + ".truth.json"))
    cmd = [binary, "layers", "verify", jpg, "--set", setpath, "--mission", truth["mission"], "--json"]
    row = {"scene": os.path.basename(jpg)[:-4], "mission": truth["mission"], "truth_matches": truth["matches"],
           "mission_card_in_view": truth.get("mission_card_in_view"), "truth_visible": "/".join(truth["visible"])}
    ex = truth.get("extra", {})
    eff = ex.get("effects", {})
    row.update({"tilt_deg": ex.get("tilt_deg"), "width_frac": ex.get("stack_width_frac"),
                "table": eff.get("table"), "kelvin": eff.get("kelvin"), "ev": eff.get("ev"),
                "shadow_band": eff.get("shadow_band", ""), "glare": "y" if "glare" in eff else "",
                "loose": "y" if ex.get("loose_layer") else "", "n_layers": len(truth["stack"]),
                "how": ex.get("how"), "truth_diff": ex.get("min_cell_diff")})
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        rc = p.returncode
        out = p.stdout
        err = p.stderr
    except subprocess.TimeoutExpired:
        rc, out, err = -999, "", "timeout"
    row["rc"] = rc
    verdict, reason, read_vis, cerr, rdiff = "", "", "", "", ""
    try:
        js = json.loads(out)
        verdict = js.get("verdict", "")
        reason = js.get("reason", "") or ""
        st = js.get("stack")
        if st and st.get("cells"):
            read_vis = ["".join((c or {}).get("label") or "?" for c in row_) for row_ in st["cells"]]
            rdiff = grid_diff(truth["visible"], read_vis)
            read_vis = "/".join(read_vis)
            if st.get("corners"):
                cerr = round(corner_err(st["corners"], truth["stack_corners_px"]), 1)
    except Exception:
        if not reason:
            reason = (err or out).strip().replace("\n", " ")[:200]
    row.update({"verdict": verdict, "reason": reason, "read_visible": read_vis,
                "read_vs_truth_cells": rdiff, "corner_err_px": cerr})
    if rc == 0 and verdict == "match":
        outcome = "right" if truth["matches"] else "false_accept"
    elif rc == 1 and verdict == "mismatch":
        outcome = "false_reject" if truth["matches"] else "right"
    elif rc == 3:
        outcome = "undecided"
    else:
        outcome = "error"
    row["outcome"] = outcome
    return row


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("set")
    ap.add_argument("dir")
    ap.add_argument("--binary", default="target/release/tablejudge")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--csv", default=None)
    ap.add_argument("--timeout", type=float, default=120)
    a = ap.parse_args()
    workers = max(1, min(a.workers, 2))
    jpgs = sorted(glob.glob(os.path.join(a.dir, "scene_*.jpg")))
    with ThreadPoolExecutor(workers) as ex:
        rows = list(ex.map(lambda j: run_one(a.binary, a.set, j, a.timeout), jpgs))
    csvpath = a.csv or os.path.join(a.dir, "eval.csv")
    keys = list(rows[0].keys()) if rows else []
    with open(csvpath, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=keys)
        w.writeheader()
        w.writerows(rows)
    cnt = collections.Counter(r["outcome"] for r in rows)
    n = len(rows)
    print("set %s, dir %s: %d scenes (%d matching, %d near misses)" % (
        a.set, a.dir, n, sum(r["truth_matches"] for r in rows), sum(not r["truth_matches"] for r in rows)))
    for k in ("right", "undecided", "false_accept", "false_reject", "error"):
        print("  %-13s %4d" % (k, cnt.get(k, 0)))
    for tm in (True, False):
        sub = [r for r in rows if r["truth_matches"] == tm]
        c = collections.Counter(r["outcome"] for r in sub)
        print("  %s scenes: %s" % ("matching" if tm else "near-miss", dict(c)))
    und = collections.Counter(" ".join(r["reason"].split(":")[0].split()[:6]) for r in rows if r["outcome"] == "undecided")
    if und:
        print("  undecided reasons (first words):")
        for k, v in und.most_common():
            print("    %4d  %s" % (v, k))
    for k in ("false_accept", "false_reject", "error"):
        lst = [r for r in rows if r["outcome"] == k]
        if lst:
            print("  %s:" % k)
            for r in lst:
                print("    %s mission %s read %s truth %s cells-off %s corner-err %s %s" % (
                    r["scene"], r["mission"], r["read_visible"], r["truth_visible"], r["read_vs_truth_cells"],
                    r["corner_err_px"], r["reason"][:120]))
    print("  per-scene CSV:", csvpath)


if __name__ == "__main__":
    main()
