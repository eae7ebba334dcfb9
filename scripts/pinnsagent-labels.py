#!/usr/bin/env python3
"""PINNsAgent's pde_labels.tsv from its database/pde_encoder.py.

    python3 scripts/pinnsagent-labels.py pde_encoder.py > pde_labels.tsv

PINNsAgent (qingpowuwu/PINNsAgent_Codes) keeps its ten labels per PINNacle
task in code: the dict PDE_LABELS = {'Burgers1D': ['Burgers', 'parabolic',
...], ...} of database/pde_encoder.py. This writes them as the table that
src/pinnsagent/labels.h reads: two '#' comment lines, then one line
per task in the dict's order, the task and its ten labels separated by tabs.
The dict is read as Python (ast.literal_eval of the assignment, not by
running the file), so its spacing, quotes and comments do not matter: the
output depends only on the labels, and scripts/fetch-data.sh checks its
SHA-256 against data/pinnsagent.sha256.

Exit codes: 0 written; 1 no PDE_LABELS dict, or one that is not task ->
ten labels (each a string without tabs or line breaks); 2 bad usage.
"""
import ast
import sys

HEADER = (
    "# PINNsAgent's ten PDE labels per PINNacle task (the input of its Physics-Guided Knowledge Replay).\n"
    "# Columns: task, family, type, dimension, linearity, time, boundary, initial, coefficient, horizon, geometry\n"
)


def labels(source, name):
    """The PDE_LABELS dict of the module text, checked; SystemExit(1) otherwise."""
    try:
        tree = ast.parse(source, name)
    except SyntaxError as e:
        sys.exit(f"{name}: not Python: {e}")
    found = None
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "PDE_LABELS" for t in node.targets):
            found = node
    if found is None:
        sys.exit(f"{name}: no assignment PDE_LABELS = {{...}} at the top level")
    try:
        table = ast.literal_eval(found.value)
    except ValueError as e:
        sys.exit(f"{name}:{found.lineno}: PDE_LABELS is not a literal: {e}")
    if not isinstance(table, dict) or not table:
        sys.exit(f"{name}:{found.lineno}: PDE_LABELS is not a non-empty dict")

    def plain(s):
        return isinstance(s, str) and s and not any(c in s for c in "\t\r\n")

    for task, row in table.items():
        if not plain(task):
            sys.exit(f"{name}: PDE_LABELS: task {task!r} is not a plain string")
        if not isinstance(row, (list, tuple)) or len(row) != 10 or not all(plain(v) for v in row):
            sys.exit(f"{name}: PDE_LABELS[{task!r}]: not a list of ten plain strings: {row!r}")
    return table


def main(argv):
    if len(argv) != 2 or argv[1].startswith("-"):
        sys.stderr.write("usage: pinnsagent-labels.py pde_encoder.py > pde_labels.tsv\n")
        return 2
    try:
        with open(argv[1], encoding="utf-8") as f:
            source = f.read()
    except OSError as e:
        sys.exit(f"{argv[1]}: {e.strerror}")
    table = labels(source, argv[1])
    out = HEADER + "".join("\t".join([task, *row]) + "\n" for task, row in table.items())
    sys.stdout.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
