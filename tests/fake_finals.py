"""fake_finals.py — finished runs for the table tests, written by hand.

    python3 fake_finals.py ROOT PDE,PDE,... METHOD:SCALE,METHOD:SCALE,...

writes ROOT/<pde>/<method>/run0 and run1 (context.json and a final.msgpack
whose hf_mse is scale * 1e-4 * (i + 1) * (1 + 0.1 r) on the i-th PDE) for
every pair that has no run folder yet: real runs made by the test stay.
"""
import json
import os
import sys

from msgpack_enc import put


def main():
    root, pdes, methods = sys.argv[1], sys.argv[2].split(","), sys.argv[3].split(",")
    for i, pde in enumerate(pdes):
        for m in methods:
            method, scale = m.split(":")
            for r in (0, 1):
                d = "%s/%s/%s/run%d" % (root, pde, method, r)
                if os.path.exists(d):
                    continue  # a real run
                os.makedirs(d)
                json.dump({"pde": pde, "method": method, "run": r, "budget": "quick", "llm": "offline"},
                          open(d + "/context.json", "w"))
                put(d + "/final.msgpack", {"format": "pinnforge.final", "version": 1,
                                           "hf_mse": float(scale) * 1e-4 * (i + 1) * (1 + 0.1 * r)})


if __name__ == "__main__":
    main()
