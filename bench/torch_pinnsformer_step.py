#!/usr/bin/python3
"""PyTorch comparator of pf-bench's `pinnsformer` case: wall time of one full
training step of PINNsFormer (Zhao et al., ICLR 2024) on Burgers-1D, on the
CPU (or a GPU with --device cuda): case `pinnsformer` at the released sizes
(below), `pinnsformer_quick` at the quick profile's (d_model 4, d_ff 25,
d_hidden 51; 1,365 collocation, 341 initial and 341 boundary points).

The command line and the JSON line it prints follow bench/
torch_pinn_step.py, the MLP cases' comparator (pf-bench's time_torch reads
"ms_per_step_median" and "params"), so pf-bench runs either the same way;
--compile too: where torch.compile is missing (PyTorch < 2.0) or the
compiled loss cannot be differentiated twice (aot_autograd has no double
backward), the line has no ms_per_step_median but "compile_error", and
the script exits 0.

Network (the released sizes; pinnsformer_quick has 4, 25, 51 in place of
32, 256, 512; per point, a pseudo-sequence of k = 5 tokens (x, t + i dt),
dt = 1e-4; every `a` below is a WaveAct of its own, w1 sin + w2 cos with
trainable scalars w1 = w2 = 1 at the start):
    e   = Linear(2 -> 32)(s)
    enc = e + MHA(a(e), a(e), a(e));  enc = enc + FF(a(enc));  enc = a(enc)
    dec = e + MHA(a(e), enc, enc);    dec = dec + FF(a(dec));  dec = a(dec)
    u   = Linear(32, 512) a Linear(512, 512) a Linear(512, 1) on dec
    FF  = Linear(32, 256) a Linear(256, 256) a Linear(256, 32)
MHA is torch's nn.MultiheadAttention (2 heads, batch_first). Weights are
Xavier uniform, biases 0.01, except the packed Q/K/V projection of each
MHA, which keeps torch's own init, as released and as the engine draws it
(torch_pinn_models.py holds the network and its init).

One step: zero_grad, forward on the (N, 5, 2) sequence, u_x and u_t by
autograd.grad of the summed output w.r.t. the sequence (create_graph=True,
as the released code differentiates), u_xx by a second grad of u_x, loss =
mean of the residual u_t + u u_x - nu u_xx squared over every token + mean
of u squared over every token of the boundary points (x = +-1) + mean of
(u + sin(pi x))^2 over token 0 of the initial points (t = 0), backward,
Adam. float32 unless --double (pf-bench's engine runs in its build's
pf_real, float by default).
"""
import argparse
import math
import os


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--blas-threads", type=int, default=None,
                   help="OpenBLAS thread count (default: same as --threads)")
    p.add_argument("--steps", type=int, default=25, help="timed steps")
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--cases", default="pinnsformer", help="pinnsformer and/or pinnsformer_quick")
    p.add_argument("--no-flops", action="store_true", help="accepted for pf-bench; nothing is counted")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--device", default="cpu", help="cpu or cuda")
    p.add_argument("--compile", action="store_true", help="wrap the loss in torch.compile (PyTorch >= 2)")
    p.add_argument("--double", action="store_true", help="float64 instead of float32")
    return p.parse_args()


ARGS = parse_args()
# Debian's torch calls OpenBLAS, whose own pool torch.set_num_threads does
# not govern: fix both before torch loads (as the MLP comparator does; but
# see openblas_threads).
BLAS_THREADS = ARGS.threads if ARGS.blas_threads is None else ARGS.blas_threads
os.environ["OPENBLAS_NUM_THREADS"] = str(BLAS_THREADS)
os.environ["OMP_NUM_THREADS"] = str(ARGS.threads)

import torch  # noqa: E402
from torch_pinn_models import PINNsFormer, init_weights, tokens  # noqa: E402
from torch_timing import compiled, say, timed  # noqa: E402
try:  # torch >= 2.3; older ones (Debian 12's 1.13) have no fused attention
    from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: E402

    def plain_attention():
        return sdpa_kernel(SDPBackend.MATH)
except ImportError:
    import contextlib

    plain_attention = contextlib.nullcontext

torch.set_num_threads(ARGS.threads)


def openblas_threads():
    """The thread count of the OpenBLAS torch's GEMMs run in, as OpenBLAS
    reports it, or None where torch runs no OpenBLAS. Debian's default
    OpenBLAS is the OpenMP build, which ignores OPENBLAS_NUM_THREADS and
    follows OMP_NUM_THREADS (--threads), so there --blas-threads has no
    effect here; unlike bench/torch_pinn_step.py this script does not set
    the count (the figures in the README were measured so)."""
    import ctypes

    libs = []
    try:
        with open("/proc/self/maps") as maps:  # the one torch loaded
            libs = sorted({ln.split()[-1] for ln in maps if "/libopenblas" in ln and ".so" in ln})
    except OSError:
        pass
    for name in libs + ["libopenblas.so.0"]:
        try:
            return int(ctypes.CDLL(name).openblas_get_num_threads())
        except (OSError, AttributeError):
            continue
    return None


OPENBLAS_THREADS = openblas_threads()
DEV = torch.device(ARGS.device)
DTYPE = torch.float64 if ARGS.double else torch.float32

SEQ_LEN, SEQ_DT, HEADS = 5, 1e-4, 2
# pf-bench's cases[]: (d_model, d_ff, d_hidden) and the collocation, initial
# and boundary point counts; pinnsformer_quick is the quick profile's
# baseline (the released sizes fitted to 5,000 parameters and 2,048 points)
CASES = {
    "pinnsformer": ((32, 256, 512), (1024, 512, 512)),
    "pinnsformer_quick": ((4, 25, 51), (1365, 341, 341)),
}
D_MODEL, D_FF, D_HIDDEN = CASES["pinnsformer"][0]


def grad(y, x):
    return torch.autograd.grad(y, x, grad_outputs=torch.ones_like(y), create_graph=True)[0]


def make_case(n, n_ic, n_bc):
    nu = 0.01 / math.pi
    net = PINNsFormer(2, 1, D_MODEL, D_FF, D_HIDDEN, HEADS)
    init_weights(net)
    net = net.to(DEV, DTYPE)
    S = tokens(torch.cat([torch.rand(n, 1) * 2 - 1, torch.rand(n, 1)], 1), SEQ_LEN, SEQ_DT)
    S = S.to(DEV, DTYPE).requires_grad_(True)
    xi = torch.rand(n_ic, 1) * 2 - 1
    SI = tokens(torch.cat([xi, torch.zeros_like(xi)], 1), SEQ_LEN, SEQ_DT).to(DEV, DTYPE)
    UI = (-torch.sin(math.pi * xi)).to(DEV, DTYPE)
    sb = (torch.randint(0, 2, (n_bc, 1)) * 2 - 1).float()
    SB = tokens(torch.cat([sb, torch.rand(n_bc, 1)], 1), SEQ_LEN, SEQ_DT).to(DEV, DTYPE)

    def loss_fn():
        u = net(S)
        du = grad(u, S)
        u_x, u_t = du[..., 0:1], du[..., 1:2]
        u_xx = grad(u_x, S)[..., 0:1]
        r = u_t + u * u_x - nu * u_xx
        ic = net(SI)[:, 0]
        return (r ** 2).mean() + (net(SB) ** 2).mean() + ((ic - UI) ** 2).mean()

    return net, loss_fn


def run_case(name):
    global D_MODEL, D_FF, D_HIDDEN
    if name not in CASES:
        raise SystemExit(f"torch_pinnsformer_step.py: no case '{name}' (only {', '.join(CASES)})")
    (D_MODEL, D_FF, D_HIDDEN), (n, n_ic, n_bc) = CASES[name]
    torch.manual_seed(ARGS.seed)
    net, loss_fn = make_case(n, n_ic, n_bc)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    out = {
        "case": name,
        "threads": ARGS.threads,
        "blas_threads": BLAS_THREADS,
        "openblas_threads": OPENBLAS_THREADS,
        "torch": torch.__version__,
        "steps": ARGS.steps,
        "warmup": ARGS.warmup,
        "n_colloc": n,
        "tokens": SEQ_LEN,
        "n_ic": n_ic,
        "n_bc": n_bc,
        "d_model": D_MODEL,
        "d_ff": D_FF,
        "d_hidden": D_HIDDEN,
        "device": str(DEV),
        "dtype": str(DTYPE).replace("torch.", ""),
        "model": "pinnsformer",
        "params": sum(p.numel() for p in net.parameters()),
    }
    loss_fn = compiled(out, loss_fn, ARGS)
    if loss_fn is None:
        return

    def step():
        opt.zero_grad(set_to_none=True)
        # The fused attention kernels that torch picks on a GPU have no
        # double backward (u_xx differentiates through attention twice), so
        # attention runs as plain matrix products there, as it does on a CPU.
        with plain_attention():
            loss = loss_fn()
            loss.backward()
        opt.step()
        return loss.item()

    if timed(out, step, ARGS, DEV) is not None:
        say(out)


def main():
    for name in ARGS.cases.split(","):
        run_case(name)


if __name__ == "__main__":
    main()
