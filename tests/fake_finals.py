"""fake_finals.py — finished runs for the table tests, written by hand.

    python3 fake_finals.py ROOT PDE,PDE,... METHOD:SCALE,METHOD:SCALE,...

writes ROOT/<pde>/<method>/run0 and run1 (context.json and a final.msgpack
whose hf_mse is scale * 1e-4 * (i + 1) * (1 + 0.1 r) on the i-th PDE) where
no run folder is yet: real runs made by the test stay, and the written runs
of a cell take a real run's settings (budget, llm, eval), since a table
cell never averages runs made with different settings (pf-stats refuses).

A METHOD@B (pinnforge@a:1) is method METHOD's runs with the LLM backbone B,
in ROOT/<pde>/METHOD@B/run<R> with "backbone": B in context.json and, unless
a real run there says otherwise, "llm": "http".
"""
import json
import os
import sys

from msgpack_enc import put


def real_settings(cell, llm):
    """The settings of a real run of the cell (the first with a context.json), else quick and llm."""
    for name in sorted(os.listdir(cell)) if os.path.isdir(cell) else []:
        try:
            c = json.load(open("%s/%s/context.json" % (cell, name)))
        except (OSError, ValueError):
            continue
        return {k: c[k] for k in ("budget", "llm", "eval") if k in c}
    return {"budget": "quick", "llm": llm}


def main():
    root, pdes, methods = sys.argv[1], sys.argv[2].split(","), sys.argv[3].split(",")
    for i, pde in enumerate(pdes):
        for m in methods:
            folder, scale = m.split(":")
            method, _, backbone = folder.partition("@")
            settings = real_settings("%s/%s/%s" % (root, pde, folder), "http" if backbone else "offline")
            if backbone:  # a mixture's folder says mix+a+b, its context.json mix:a,b
                settings["backbone"] = "mix:" + backbone[4:].replace("+", ",") if backbone.startswith("mix+") else backbone
            for r in (0, 1):
                d = "%s/%s/%s/run%d" % (root, pde, folder, r)
                if os.path.exists(d):
                    continue  # a real run
                os.makedirs(d)
                json.dump(dict({"pde": pde, "method": method, "run": r}, **settings), open(d + "/context.json", "w"))
                put(d + "/final.msgpack", {"format": "pinnforge.final", "version": 1,
                                           "hf_mse": float(scale) * 1e-4 * (i + 1) * (1 + 0.1 * r)})


if __name__ == "__main__":
    main()
