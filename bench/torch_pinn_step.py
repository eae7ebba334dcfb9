#!/usr/bin/python3
"""PyTorch comparator of pf-bench's MLP cases: wall time of one full PINN
training step, on the CPU (or a GPU with --device cuda).

Cases (pf-bench's cases[] table; every network is a tanh MLP of `depth`
hidden layers of `width` and a linear output, Glorot-normal weights, zero
biases, as the engine's default model: torch_pinn_models.tanh_mlp):
    burgers_4x64            Burgers-1D, 4 x 64,  N = 4096,  512 initial + 512 boundary
    burgers_6x128           Burgers-1D, 6 x 128, N = 10000, 512 initial + 512 boundary
    poisson5d_4x64          Poisson-5D, 4 x 64,  N = 4096,  1024 boundary
    ks_4x64                 Kuramoto-Sivashinsky, 4 x 64, N = 4096, 1024 initial
    pinnacle_default_5x100  Burgers-1D, 5 x 100 (PINNacle's default PINN),
                            N = 8192, 2048 initial + 2048 boundary
PDEs and points (uniform draws, fixed seed):
    burgers    (x, t) in [-1, 1] x [0, 1]; u_t + u u_x - nu u_xx, nu = 0.01/pi;
               u = -sin(pi x) at t = 0, u = 0 at x = +-1 (t uniform)
    poisson5d  x in [0, 1]^5; Laplacian(u) + f, f = pi^2 sum_j sin(pi x_j);
               on the boundary (one random coordinate set to 0 or 1)
               u = sum_j sin(pi x_j)
    ks         (x, t) in [0, 2 pi] x [0, 1]; u_t + a u u_x + b u_xx + c u_xxxx,
               a = 100/16, b = 100/16^2, c = 100/16^4; u = cos x (1 + sin x)
               at t = 0
One step: zero_grad, forward on the collocation points, the input
derivatives the residual needs by nested torch.autograd.grad
(create_graph=True; KS's u_xxxx four grads deep, Poisson's Laplacian one
second grad per coordinate), loss = mean of the residual squared + mean of
(u - u_b)^2 over the initial/boundary points, backward, Adam (lr 1e-3).
float32 unless --double (pf-bench passes it when its engine is built in
double). The first --warmup steps are not timed; the median is over
--steps timed steps, a GPU synchronized before and after each.

Command line (pf-bench's time_torch runs it as
    python3 bench/torch_pinn_step.py --threads T --blas-threads 1 --no-flops
            --cases NAME --steps S --warmup W --device cpu|cuda [--compile]):
    --threads        torch's intra-op threads (default 1)
    --blas-threads   OpenBLAS's threads (Debian's torch calls OpenBLAS, whose
                     pool torch.set_num_threads does not govern; default:
                     --threads), set by openblas_set_num_threads once torch
                     has loaded it (the OpenMP build, Debian's default,
                     ignores OPENBLAS_NUM_THREADS)
    --cases          comma-separated case names (default: all of the above)
    --steps, --warmup, --seed, --device, --double
    --no-flops       skip the profiled step that counts GEMM FLOPs
    --compile        wrap the loss in torch.compile (see below)

Prints one JSON line per case:
    case, pde, model ("mlp"), depth, width, n_colloc, n_ic, n_bc
    params               trainable parameter count (pf-bench compares it
                         with the engine's)
    ms_per_step_median   median ms per step over the timed steps (pf-bench
                         reads it), ms_min, ms_max
    final_loss           the loss of the last timed step
    threads, blas_threads (asked), openblas_threads (OpenBLAS's own count
    afterwards; null without OpenBLAS), torch (version), device, dtype,
    steps, warmup, compiled (bool)
    gemm_gflop_per_step, gemm_calls_per_step, gemm_gflops
                         unless --no-flops: one extra, untimed step under
                         torch.profiler(with_flops=True); the FLOPs it
                         records for aten::mm / addmm / bmm / baddbmm (2 M N K
                         each) summed, i.e. the dense-layer GEMMs of the
                         forward, the derivative passes and the backward; the
                         elementwise work is not counted. gemm_gflops is that
                         over the median step time.

--compile: torch.compile (PyTorch >= 2.0) of the loss. Its default
backend goes through aot_autograd, which cannot differentiate its compiled
graphs twice (torch 2.11 on a GPU: "torch.compile with aot_autograd does
not currently support double backward"), and a PINN loss needs that;
older PyTorch (Debian 12's 1.13) has no torch.compile at all. Where the compiled step fails, the case's
line has no ms_per_step_median, "compiled": false and
"compile_error": the reason, and the script still exits 0 (pf-bench then
prints nan for the compiled column and the reason on stderr).
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
    p.add_argument("--cases", default=None, help="comma-separated case names (default: all)")
    p.add_argument("--no-flops", action="store_true", help="skip the profiled FLOP-count step")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--device", default="cpu", help="cpu or cuda")
    p.add_argument("--compile", action="store_true", help="wrap the loss in torch.compile (PyTorch >= 2)")
    p.add_argument("--double", action="store_true", help="float64 instead of float32")
    return p.parse_args()


ARGS = parse_args()
# Debian's torch calls OpenBLAS, whose own pool torch.set_num_threads does
# not govern: fix both before torch loads.
BLAS_THREADS = ARGS.threads if ARGS.blas_threads is None else ARGS.blas_threads
os.environ["OPENBLAS_NUM_THREADS"] = str(BLAS_THREADS)
os.environ["OMP_NUM_THREADS"] = str(ARGS.threads)

import torch  # noqa: E402
from torch_pinn_models import tanh_mlp  # noqa: E402
from torch_timing import compiled, say, timed  # noqa: E402

torch.set_num_threads(ARGS.threads)


def pin_openblas(n):
    """Set the OpenBLAS pool torch's GEMMs run in to n threads; its thread
    count as OpenBLAS then reports it, or None where torch runs no OpenBLAS.
    OPENBLAS_NUM_THREADS alone is not enough: Debian's default OpenBLAS is
    the OpenMP build, which ignores it and follows OMP_NUM_THREADS."""
    import ctypes

    libs = []
    try:
        with open("/proc/self/maps") as maps:  # the one torch loaded
            libs = sorted({ln.split()[-1] for ln in maps if "/libopenblas" in ln and ".so" in ln})
    except OSError:
        pass
    for name in libs + ["libopenblas.so.0"]:
        try:
            lib = ctypes.CDLL(name)
            lib.openblas_set_num_threads(n)
            return int(lib.openblas_get_num_threads())
        except (OSError, AttributeError):
            continue
    return None


OPENBLAS_THREADS = pin_openblas(BLAS_THREADS)
DEV = torch.device(ARGS.device)
DTYPE = torch.float64 if ARGS.double else torch.float32

# name: (pde, depth, width, collocation points, initial points, boundary
# points), as pf-bench's cases[] has them
CASES = {
    "burgers_4x64": ("burgers", 4, 64, 4096, 512, 512),
    "burgers_6x128": ("burgers", 6, 128, 10000, 512, 512),
    "poisson5d_4x64": ("poisson5d", 4, 64, 4096, 1024, 0),
    "ks_4x64": ("ks", 4, 64, 4096, 1024, 0),
    "pinnacle_default_5x100": ("burgers", 5, 100, 8192, 2048, 2048),
}
GEMM_OPS = ("aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm")


def grad(y, x):
    return torch.autograd.grad(y, x, grad_outputs=torch.ones_like(y), create_graph=True)[0]


def uniform(n, lo=0.0, hi=1.0):
    return lo + (hi - lo) * torch.rand(n, 1)


# Each PDE: (input dim, collocation points, boundary points, boundary values,
# residual(u, X)); X gets requires_grad later.
def burgers(n, n_ic, n_bc):
    nu = 0.01 / math.pi
    X = torch.cat([uniform(n, -1, 1), uniform(n)], 1)
    xi = uniform(n_ic, -1, 1)
    side = torch.randint(0, 2, (n_bc, 1)).float() * 2 - 1
    XB = torch.cat([torch.cat([xi, torch.zeros_like(xi)], 1), torch.cat([side, uniform(n_bc)], 1)], 0)
    UB = torch.cat([-torch.sin(math.pi * xi), torch.zeros(n_bc, 1)], 0)

    def residual(u, X):
        du = grad(u, X)
        u_x, u_t = du[:, 0:1], du[:, 1:2]
        u_xx = grad(u_x, X)[:, 0:1]
        return u_t + u * u_x - nu * u_xx

    return 2, X, XB, UB, residual


def poisson5d(n, n_ic, n_bc, d=5):
    nb = n_ic + n_bc
    X = torch.rand(n, d)
    F = math.pi ** 2 * torch.sin(math.pi * X).sum(1, keepdim=True)
    XB = torch.rand(nb, d)
    XB[torch.arange(nb), torch.randint(0, d, (nb,))] = torch.randint(0, 2, (nb,)).float()
    UB = torch.sin(math.pi * XB).sum(1, keepdim=True)
    F = F.to(DEV, DTYPE)

    def residual(u, X):
        g = grad(u, X)
        lap = grad(g[:, 0:1], X)[:, 0:1]
        for j in range(1, d):
            lap = lap + grad(g[:, j:j + 1], X)[:, j:j + 1]
        return lap + F

    return d, X, XB, UB, residual


def ks(n, n_ic, n_bc):
    a, b, c = 100 / 16, 100 / 16 ** 2, 100 / 16 ** 4
    X = torch.cat([uniform(n, 0, 2 * math.pi), uniform(n)], 1)
    xi = uniform(n_ic + n_bc, 0, 2 * math.pi)
    XB = torch.cat([xi, torch.zeros_like(xi)], 1)
    UB = torch.cos(xi) * (1 + torch.sin(xi))

    def residual(u, X):
        du = grad(u, X)
        u_x, u_t = du[:, 0:1], du[:, 1:2]
        u_xx = grad(u_x, X)[:, 0:1]
        u_xxx = grad(u_xx, X)[:, 0:1]
        u_xxxx = grad(u_xxx, X)[:, 0:1]
        return u_t + a * u * u_x + b * u_xx + c * u_xxxx

    return 2, X, XB, UB, residual


PDES = {"burgers": burgers, "poisson5d": poisson5d, "ks": ks}


def make_case(name):
    pde, depth, width, n, n_ic, n_bc = CASES[name]
    d, X, XB, UB, residual = PDES[pde](n, n_ic, n_bc)
    net = tanh_mlp(d, depth, width).to(DEV, DTYPE)
    X = X.to(DEV, DTYPE).requires_grad_(True)
    XB, UB = XB.to(DEV, DTYPE), UB.to(DEV, DTYPE)

    def loss_fn():
        r = residual(net(X), X)
        return (r ** 2).mean() + ((net(XB) - UB) ** 2).mean()

    return net, loss_fn


def sync():
    if DEV.type == "cuda":
        torch.cuda.synchronize()


def gemm_flops(step):
    """GEMM FLOPs and calls of one step, as torch.profiler counts them."""
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU], with_flops=True) as prof:
        step()
    sync()
    flops = calls = 0
    for ev in prof.key_averages():
        if ev.key in GEMM_OPS:
            flops += ev.flops
            calls += ev.count
    return flops, calls


def run_case(name):
    if name not in CASES:
        raise SystemExit(f"torch_pinn_step.py: no case '{name}'; the cases: {', '.join(CASES)}")
    pde, depth, width, n, n_ic, n_bc = CASES[name]
    torch.manual_seed(ARGS.seed)
    net, loss_fn = make_case(name)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    out = {
        "case": name,
        "pde": pde,
        "model": "mlp",
        "depth": depth,
        "width": width,
        "n_colloc": n,
        "n_ic": n_ic,
        "n_bc": n_bc,
        "params": sum(p.numel() for p in net.parameters() if p.requires_grad),
        "threads": ARGS.threads,
        "blas_threads": BLAS_THREADS,
        "openblas_threads": OPENBLAS_THREADS,
        "torch": torch.__version__,
        "device": str(DEV),
        "dtype": str(DTYPE).replace("torch.", ""),
        "steps": ARGS.steps,
        "warmup": ARGS.warmup,
    }
    loss_fn = compiled(out, loss_fn, ARGS)
    if loss_fn is None:
        return

    def step():
        opt.zero_grad(set_to_none=True)
        loss = loss_fn()
        loss.backward()
        opt.step()
        return loss.item()

    med = timed(out, step, ARGS, DEV)
    if med is None:
        return
    if not ARGS.no_flops:
        flops, calls = gemm_flops(step)
        out["gemm_gflop_per_step"] = round(flops * 1e-9, 4)
        out["gemm_calls_per_step"] = calls
        out["gemm_gflops"] = round(flops * 1e-9 / med, 2)
    say(out)


def main():
    if ARGS.steps < 1 or ARGS.warmup < 0:
        raise SystemExit("torch_pinn_step.py: --steps must be >= 1 and --warmup >= 0")
    if DEV.type == "cuda" and not torch.cuda.is_available():
        raise SystemExit("torch_pinn_step.py: --device cuda, but torch sees no GPU")
    for name in (ARGS.cases.split(",") if ARGS.cases else CASES):
        run_case(name)


if __name__ == "__main__":
    main()
