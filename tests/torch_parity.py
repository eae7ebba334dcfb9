#!/usr/bin/python3
"""Step 0 of a PINNForge training recomputed in PyTorch (docs/baselines.md,
"Parity with PyTorch at step 0"; tests/t0410-torch-parity.sh runs it).

    torch_parity.py STEP0.h5 --tol-loss R --tol-grad G

STEP0.h5 is what `pf-train --step0` writes (src/train/step0.h): the spec,
the initial parameters, every set's points, each loss's value and weight,
the weighted total and its gradient. This script builds the same network in
torch (bench/torch_pinn_models.py), loads those parameters, evaluates every
loss on the same points with torch autograd (input derivatives by nested
autograd.grad, create_graph=True), sums them with the file's weights and
backpropagates. The reference is computed in float64 from the file's
numbers (a float file's values are exact in float64), so what it measures
is the engine's own rounding; the same computation in the file's precision
is printed beside it as torch's own error, for scale.

It prints one line per loss and a summary of the gradients, and exits 1
when the relative error of any loss or of the total exceeds R, or the
relative L2 error of any tensor's gradient, ||g_engine - g_torch|| /
max(||g_torch||, SMALL ||whole gradient||), exceeds G; 2 on bad input (a
spec or PDE it does not know). The floor SMALL = 1e-6 is for the tensors
whose gradient is (nearly) zero by cancellation, whose relative error says
nothing of the step: PINNsFormer's attention key biases (softmax ignores a
shift of every score by q.b, so their gradient is 0 in exact arithmetic)
and the query and key projections and the decoder's first WaveAct (the k
tokens of a point differ by dt = 1e-4, so each attention is nearly uniform
and their gradient about 1e-10 of the whole); torch's own float32 step
gets those wrong by a factor of up to 1e8. They are listed with their own
relative errors.

Derivatives of a sequence model (PINNsFormer) are taken as the engine takes
them: token i's output as a function of its point, the tokens built from
the point (its last input shifted by i dt) inside the differentiation. The
PDEs it knows are written out below, independently of the engine's.
"""
import argparse
import json
import math
import os
import sys

import h5py
import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
from torch_pinn_models import PINNsFormer, tanh_mlp, tokens  # noqa: E402

torch.set_num_threads(1)
SMALL = 1e-6


def fail(msg):
    print(f"torch_parity.py: {msg}", file=sys.stderr)
    sys.exit(2)


# ------------------------------------------------------------------ inputs

class Rows:
    """One set's points as the network sees them: its rows (token rows when
    the set's losses average over k tokens, else one per point), with the
    fields u(o), the coordinates x(j) of each row, and the derivatives
    d(o, (j1, j2, ...)) of each row's output w.r.t. its point."""

    def __init__(self, net, seq, X, k, dt):
        self.P = X.clone().requires_grad_(True)
        if seq:  # every token's output; the set's losses use tokens 0..k-1
            S = tokens(self.P, seq, dt)
            U = net(S)
            self.us = [U[:, i, :] for i in range(k)]
            self.xs = [S[:, i, :] for i in range(k)]
        else:
            self.us, self.xs = [net(self.P)], [self.P]
        self.cache = {}

    def u(self, o):
        return torch.cat([u[:, o] for u in self.us])

    def x(self, j):
        return torch.cat([x[:, j] for x in self.xs])

    def _d(self, i, o, alpha):
        key = (i, o, alpha)
        if key not in self.cache:
            g = self.us[i][:, o] if not alpha else self._d(i, o, alpha[:-1])
            if alpha:
                g = torch.autograd.grad(g.sum(), self.P, create_graph=True)[0][:, alpha[-1]]
            self.cache[key] = g
        return self.cache[key]

    def d(self, o, *alpha):
        return torch.cat([self._d(i, o, tuple(alpha)) for i in range(len(self.us))])


# ------------------------------------------------------------------ PDEs
# Each: {loss name: residual(rows)}; the loss is the mean of its square over
# the rows (docs/pdes.md for the equations).

def burgers_1d():
    nu = 0.01 / math.pi
    return {
        "pde": lambda r: r.d(0, 1) + r.u(0) * r.d(0, 0) - nu * r.d(0, 0, 0),
        "ic": lambda r: r.u(0) + torch.sin(math.pi * r.x(0)),
        "bc": lambda r: r.u(0),
    }


def wave_1d():
    def shape(x):
        return torch.sin(math.pi * x) + 0.5 * torch.sin(4 * math.pi * x)

    return {
        "pde": lambda r: r.d(0, 1, 1) - 4 * r.d(0, 0, 0),
        "ic": lambda r: r.u(0) - shape(r.x(0)),
        "ic_rate": lambda r: r.d(0, 1),
        "bc": lambda r: r.u(0),
    }


def poisson_2d_classic():
    return {
        "pde": lambda r: r.d(0, 0, 0) + r.d(0, 1, 1),
        "bc_outer": lambda r: r.u(0) - 1,
        "bc_holes": lambda r: r.u(0),
    }


PDES = {"burgers_1d": burgers_1d, "wave_1d": wave_1d, "poisson_2d_classic": poisson_2d_classic}


# ------------------------------------------------------------------ networks

def mlp_names(depth):
    """Engine parameter name -> (torch parameter name, slice or None)."""
    m = {}
    for i in range(depth + 1):
        eng = f"h{i + 1}" if i < depth else "out"
        m[f"{eng}.W"], m[f"{eng}.b"] = (f"{2 * i}.weight", None), (f"{2 * i}.bias", None)
    return m


def pinnsformer_names(layers, d_model):
    m = {"emb.W": ("emb.weight", None), "emb.b": ("emb.bias", None)}

    def lin(eng, tor):
        m[f"{eng}.W"], m[f"{eng}.b"] = (f"{tor}.weight", None), (f"{tor}.bias", None)

    def wave(eng, tor):
        m[f"{eng}.w1"], m[f"{eng}.w2"] = (f"{tor}.w1", None), (f"{tor}.w2", None)

    for side in ("enc", "dec"):
        for layer in range(layers):
            e, t = f"{side}{layer}", f"{side}.{layer}"
            wave(f"{e}.act1", f"{t}.act1")
            wave(f"{e}.act2", f"{t}.act2")
            for i, q in enumerate("qkv"):  # blocks of the packed in_proj
                s = slice(i * d_model, (i + 1) * d_model)
                m[f"{e}.attn.{q}.W"] = (f"{t}.attn.in_proj_weight", s)
                m[f"{e}.attn.{q}.b"] = (f"{t}.attn.in_proj_bias", s)
            lin(f"{e}.attn.o", f"{t}.attn.out_proj")
            for i, n in enumerate(("l1", "a1", "l2", "a2", "l3")):
                (lin if n[0] == "l" else wave)(f"{e}.ff.{n}", f"{t}.ff.{i}")
        wave(f"{side}.act", f"{side}_act")
    for i, n in enumerate(("l1", "a1", "l2", "a2", "l3")):
        (lin if n[0] == "l" else wave)(f"out.{n}", f"head.{i}")
    return m


def build(spec, d_in, d_out):
    """The network of spec's architecture, its name map, its token count and
    their shift."""
    a, r = spec["architecture"], spec["representation"]
    if r["normalize"] or r["fourier"]["features"] or r["periodic"]["inputs"]:
        fail(f"only the identity representation is written here, not {json.dumps(r)}")
    if a["type"] == "mlp":
        if a["activation"] != "tanh" or a["adaptive"] != "none" or a["rwf"]:
            fail(f"only a plain tanh MLP is written here, not {json.dumps(a)}")
        return tanh_mlp(d_in, a["depth"], a["width"], d_out), mlp_names(a["depth"]), 0, 0.0
    if a["type"] == "pinnsformer":
        q = a["pinnsformer"]
        net = PINNsFormer(d_in, d_out, a["width"], q["d_ff"], q["d_hidden"], q["heads"], a["depth"])
        return net, pinnsformer_names(a["depth"], a["width"]), q["tokens"], q["dt"]
    fail(f"architecture type '{a['type']}' is not written here")


def weights(spec):
    """Each term's weight at step 0, from the spec alone: fixed weights
    (default 1) on soft constraints, nothing that rescales them at step 0."""
    lo = spec["loss"]
    if (spec["constraints"]["mode"] != "soft" or lo["weighting"]["method"] != "fixed" or lo["causal"]["enabled"]
            or lo["residual_normalization"] != "none"):
        fail(f"only soft constraints with fixed weights are written here, not {json.dumps(lo)}")
    return lo.get("weights", {})


def load(net, names, h5, dtype):
    net.to(dtype)
    params = dict(net.named_parameters())
    seen = set()
    with torch.no_grad():
        for eng, (tor, s) in names.items():
            if eng not in h5["params"]:
                fail(f"the file has no parameter {eng}")
            v = torch.from_numpy(np.asarray(h5["params"][eng], dtype=np.float64)).to(dtype)
            p = params[tor] if s is None else params[tor][s]
            p.copy_(v.reshape(p.shape))
            seen.add(tor)
    left = sorted(set(params) - seen)
    extra = sorted(set(h5["params"]) - set(names))
    if left or extra:
        fail(f"parameters do not match: torch's {left} have no engine value, the engine's {extra} no torch place")


# ------------------------------------------------------------------ step 0

def step0(h5, dtype):
    """Every loss, the weighted total and the gradient per engine parameter."""
    spec = json.loads(h5.attrs["spec"])
    pde = h5.attrs["pde"].decode() if isinstance(h5.attrs["pde"], bytes) else h5.attrs["pde"]
    if pde not in PDES:
        fail(f"PDE '{pde}' is not written here (known: {', '.join(PDES)})")
    res = PDES[pde]()
    x0 = h5["sets"]["interior"]["x"]
    d_in = x0.shape[1]
    d_out = 1
    net, names, seq, dt = build(spec, d_in, d_out)
    w = weights(spec)
    load(net, names, h5, dtype)
    rows = {}
    losses = []
    total = 0
    for key in sorted(h5["losses"]):
        g = h5["losses"][key].attrs
        name, set_name, term = g["name"].decode(), g["set"].decode(), g["term_name"].decode()
        if name not in res:
            fail(f"loss '{name}' of {pde} is not written here")
        if int(g["chunk"]) >= 0:
            fail("causal weighting is not written here")
        if set_name not in rows:
            s = h5["sets"][set_name]
            X = torch.from_numpy(np.asarray(s["x"], dtype=np.float64)).to(dtype)
            rows[set_name] = Rows(net, seq, X, int(s.attrs["tokens"]), dt)
        v = (res[name](rows[set_name]) ** 2).mean()
        losses.append((key, name, float(g["value"]), v))
        total = total + float(w.get(term, 1.0)) * v
    net.zero_grad()
    total.backward()
    tp = dict(net.named_parameters())
    grads = {}
    for eng, (tor, s) in names.items():
        gr = tp[tor].grad if s is None else tp[tor].grad[s]
        grads[eng] = gr.detach().double().numpy().reshape(np.asarray(h5["params"][eng]).shape)
    return [(k, n, e, float(v)) for k, n, e, v in losses], float(total), grads


def rel(a, b):
    return abs(a - b) / max(abs(b), 1e-300)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file")
    ap.add_argument("--tol-loss", type=float, required=True, help="largest relative error of a loss")
    ap.add_argument("--tol-grad", type=float, required=True, help="largest relative L2 error of a gradient tensor")
    a = ap.parse_args()
    with h5py.File(a.file, "r") as h5:
        if h5.attrs.get("format", b"").decode() != "pinnforge.step0":
            fail(f"{a.file} is not a pinnforge.step0 file")
        prec = h5.attrs["precision"].decode()
        own = torch.float32 if prec == "float" else torch.float64
        losses, total, grads = step0(h5, torch.float64)
        own_losses, own_total, own_grads = step0(h5, own)
        eng_total = float(h5.attrs["loss_total"])
        eng_grads = {k: np.asarray(h5["grad"][k], dtype=np.float64) for k in grads}
    bad = 0
    print(f"{a.file}: {len(grads)} tensors, {sum(g.size for g in grads.values())} parameters, engine in {prec}")
    for (key, name, eng, v), (_, _, _, vo) in zip(losses, own_losses):
        e = rel(eng, v)
        bad += e > a.tol_loss
        print(f"  loss {key} {name:10s} engine {eng:.9e} torch {v:.9e} rel {e:.2e} (torch {prec} {rel(vo, v):.2e})")
    e = rel(eng_total, total)
    bad += e > a.tol_loss
    print(f"  total            engine {eng_total:.9e} torch {total:.9e} rel {e:.2e} (torch {prec} "
          f"{rel(own_total, total):.2e})")
    # a tensor whose gradient is below SMALL of the whole one is measured
    # against SMALL |g| (see the docstring)
    whole = math.sqrt(sum(float(np.sum(g * g)) for g in grads.values()))
    worst, worst_own, small = (0, ""), 0, []
    for k, g in grads.items():
        n = np.linalg.norm(g)
        scale = max(n, SMALL * whole)
        e = np.linalg.norm(eng_grads[k] - g) / scale
        eo = np.linalg.norm(own_grads[k] - g) / scale
        worst, worst_own = max(worst, (e, k)), max(worst_own, eo)
        if n < SMALL * whole:
            small.append(f"{k} (|g| {n:.1e}: engine {np.linalg.norm(eng_grads[k] - g) / max(n, 1e-300):.1e}, "
                         f"torch {prec} {np.linalg.norm(own_grads[k] - g) / max(n, 1e-300):.1e})")
        if e > a.tol_grad:
            bad += 1
            print(f"  FAIL grad {k}: rel L2 {e:.2e} > {a.tol_grad:g} (|g| {n:.3e}; torch {prec} {eo:.2e})")
    print(f"  gradients: |g| {whole:.3e}, worst rel L2 {worst[0]:.2e} ({worst[1]}), torch {prec}'s own worst "
          f"{worst_own:.2e}; tolerances: loss {a.tol_loss:g}, gradient {a.tol_grad:g}")
    if small:
        print(f"  measured against {SMALL:g} |g|, their own relative errors beside: " + "; ".join(small))
    print(f"{a.file}: {'FAIL' if bad else 'ok'} ({bad} over tolerance)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
