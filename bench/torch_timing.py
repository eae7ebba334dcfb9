"""What the two PyTorch comparators share (torch_pinn_step.py and
torch_pinnsformer_step.py, beside this file): compiling the loss when asked,
timing a step, and the JSON line pf-bench reads.

    loss_fn = compiled(out, loss_fn, args)      # None: compile refused, line printed
    med = timed(out, step, args, dev)           # fills out's timing fields, or prints why not
"""
import json
import time

import torch


def first_line(e):
    msg = str(e).strip().splitlines()
    return f"{type(e).__name__}: {msg[0] if msg else ''}"[:300]


def say(out):
    print(json.dumps(out), flush=True)


def compiled(out, loss_fn, args):
    """loss_fn under torch.compile when args.compile; None (after printing
    out with compile_error) when this torch has none."""
    out["compiled"] = False
    if not args.compile:
        return loss_fn
    if not hasattr(torch, "compile"):
        out["compile_error"] = f"torch {torch.__version__} has no torch.compile (PyTorch >= 2.0)"
        say(out)
        return None
    return torch.compile(loss_fn)


def timed(out, step, args, dev):
    """args.warmup untimed steps, then args.steps timed ones (the GPU
    synchronised around each); out gets the median, min, max (ms) and the
    last loss. Returns the median in seconds, or None when a compiled step
    failed (torch.compile's aot_autograd has no double backward): then out
    says why, with no time, and is printed."""

    def sync():
        if dev.type == "cuda":
            torch.cuda.synchronize()

    times, loss = [], float("nan")
    try:
        for _ in range(args.warmup):
            step()
        for _ in range(args.steps):
            sync()
            t0 = time.perf_counter()
            loss = step()
            sync()
            times.append(time.perf_counter() - t0)
    except Exception as e:  # noqa: BLE001
        if not args.compile:
            raise
        out["compile_error"] = first_line(e)
        say(out)
        return None
    out["compiled"] = bool(args.compile)
    times.sort()
    k = len(times)
    med = times[k // 2] if k % 2 else 0.5 * (times[k // 2 - 1] + times[k // 2])
    out["ms_per_step_median"] = round(med * 1e3, 3)
    out["ms_min"] = round(times[0] * 1e3, 3)
    out["ms_max"] = round(times[-1] * 1e3, 3)
    out["final_loss"] = loss
    return med
