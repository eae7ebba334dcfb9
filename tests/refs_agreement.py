#!/usr/bin/env python3
"""refs_agreement.py — compare our solution with stored COMSOL values
(tests/t1125-refs-agreement.sh; docs/pdes.md R.3).

    refs_agreement.py grid REF.dat SAMPLE.tsv D COL... [FILTER...]
    refs_agreement.py points VALUES.txt SAMPLE.tsv D [FILTER...]

SAMPLE.tsv holds COMSOL nodes, lines "c_1 .. c_D w_1 .. w_K" ('#' lines are
comments: data/checks/<pde>.comsol-sample.tsv).

grid: REF.dat is one of our references laid out on a grid (the grid rule's
points, docs/pdes.md 0.3, less those in holes), lines "c_1 .. c_D v_0 v_1 ..",
'%' lines comments. COL... gives, for each of the K sample columns, the index
of REF's value column it matches (0 = the first after the coordinates). Each
node is interpolated multilinearly in the grid cell that holds it (a node
outside the grid's span uses the nearest cell, extrapolated, unless
--within-grid leaves it out); a node whose cell has a corner missing (in a
hole) is left out.

points: VALUES.txt is the output of a FreeFEM script run at the sample's
nodes (refs/<pde>.edp -pts): "P K", P lines of K values, "end".

FILTER, to look at part of the nodes:
    --within-grid         (grid) only nodes inside the grid's span
    --near X Y Z R DMAX   only nodes within DMAX of the sphere (X, Y, Z), R
    --away X Y Z R DMIN   only nodes at least DMIN from that sphere (repeatable)

Prints one line, over all K columns of the nodes kept:
    used <nodes> skipped <nodes> rel_l2 <|ours - COMSOL| / |COMSOL|>
    mean_diff <mean of ours - COMSOL> scale <<ours, COMSOL> / <COMSOL, COMSOL>>
    smaller <fraction of values with |ours| < |COMSOL|>
"""
import bisect
import math
import sys


def fail(msg):
    sys.exit(f"refs_agreement.py: {msg}")


def rows(path, comment):
    with open(path) as f:
        for line in f:
            if line.startswith(comment) or not line.strip():
                continue
            yield [float(w) for w in line.split()]


def grid_values(ref_path, sample, d, cols, within=False):
    """Our values at the sample's nodes, None where the cell is not whole."""
    table = {tuple(r[:d]): r[d:] for r in rows(ref_path, "%")}
    if not table:
        fail(f"{ref_path}: no rows")
    axes = [sorted({k[a] for k in table}) for a in range(d)]
    if any(len(ax) < 2 for ax in axes):
        fail(f"{ref_path}: an axis has fewer than 2 values")
    out = []
    for s in sample:
        lo, frac = [], []
        if within and any(not ax[0] <= s[a] <= ax[-1] for a, ax in enumerate(axes)):
            out.append(None)
            continue
        for a, ax in enumerate(axes):
            i = min(max(bisect.bisect_right(ax, s[a]) - 1, 0), len(ax) - 2)
            lo.append(i)
            frac.append((s[a] - ax[i]) / (ax[i + 1] - ax[i]))
        got = [0.0] * len(cols)
        for corner in range(1 << d):
            key, w = [], 1.0
            for a in range(d):
                up = (corner >> a) & 1
                key.append(axes[a][lo[a] + up])
                w *= frac[a] if up else 1 - frac[a]
            v = table.get(tuple(key))
            if v is None:
                got = None
                break
            for j, c in enumerate(cols):
                got[j] += w * v[c]
        out.append(got)
    return out


def point_values(path, n, k):
    with open(path) as f:
        words = f.read().split()
    if len(words) < 3 or words[-1] != "end" or words[:2] != [str(n), str(k)]:
        fail(f"{path}: not a whole values file of {n} points x {k}")
    v = [float(w) for w in words[2:-1]]
    return [v[k * i:k * (i + 1)] for i in range(n)]


def main(argv):
    if len(argv) > 1 and argv[1] in ("-h", "--help"):
        sys.stdout.write(__doc__)
        return 0
    if len(argv) < 5 or argv[1] not in ("grid", "points"):
        sys.stderr.write(__doc__)
        return 2
    mode, ours_path, sample_path, d = argv[1], argv[2], argv[3], int(argv[4])
    rest = argv[5:]
    cols = []
    while mode == "grid" and rest and not rest[0].startswith("--"):
        cols.append(int(rest.pop(0)))
    near, away, within = None, [], False
    while rest:
        if rest[0] == "--within-grid" and mode == "grid":
            within, rest = True, rest[1:]
            continue
        opt, nums = rest[0], rest[1:6]
        if opt not in ("--near", "--away") or len(nums) != 5 or d != 3:
            fail(f"bad filter at '{' '.join(rest)}'")
        nums = [float(x) for x in nums]
        if opt == "--near":
            near = nums
        else:
            away.append(nums)
        rest = rest[6:]
    sample = list(rows(sample_path, "#"))
    if not sample:
        fail(f"{sample_path}: no rows")
    k = len(sample[0]) - d
    if mode == "grid" and len(cols) != k:
        fail(f"{sample_path} has {k} value columns, {len(cols)} COL given")
    ours = grid_values(ours_path, sample, d, cols, within) if mode == "grid" else point_values(ours_path, len(sample), k)

    def dist(s, ball):
        return math.dist(s[:3], ball[:3]) - ball[3]

    used = skipped = smaller = total = 0
    num = den = dot = diff = 0.0
    for s, got in zip(sample, ours):
        if near and dist(s, near) > near[4]:
            continue
        if any(dist(s, b) < b[4] for b in away):
            continue
        if got is None:
            skipped += 1
            continue
        used += 1
        for g, c in zip(got, s[d:]):
            num += (g - c) ** 2
            den += c * c
            dot += g * c
            diff += g - c
            smaller += abs(g) < abs(c)
            total += 1
    if not used or den == 0:
        fail(f"no node of {sample_path} kept")
    print(f"used {used} skipped {skipped} rel_l2 {math.sqrt(num / den):.4g} mean_diff {diff / total:.4g} "
          f"scale {dot / den:.4g} smaller {smaller / total:.3g}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
