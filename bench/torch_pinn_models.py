"""The PyTorch networks that the comparators beside this file time
(torch_pinn_step.py, torch_pinnsformer_step.py) and that the parity test
(tests/torch_parity.py) loads the engine's parameters into: one definition
of each, as the engine builds it (src/nn/model.h, src/nn/pinnsformer.h).

    net = tanh_mlp(d_in, depth, width)            # Glorot-normal weights, zero biases
    net = PINNsFormer(d_in=2); init_weights(net)  # the released sizes and init
    u = net(tokens(p, 5, 1e-4))                   # (n, d_in) points -> (n, 5, d_out)
"""
import torch
from torch import nn


def tanh_mlp(d_in, depth, width, d_out=1):
    """depth hidden Linear + tanh layers of `width`, then Linear(width, d_out)."""
    sizes = [d_in] + [width] * depth + [d_out]
    layers = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        lin = nn.Linear(a, b)
        nn.init.xavier_normal_(lin.weight)
        nn.init.zeros_(lin.bias)
        layers.append(lin)
        if i < depth:
            layers.append(nn.Tanh())
    return nn.Sequential(*layers)


class WaveAct(nn.Module):
    """w1 sin x + w2 cos x, w1 = w2 = 1 at the start."""

    def __init__(self):
        super().__init__()
        self.w1 = nn.Parameter(torch.ones(1))
        self.w2 = nn.Parameter(torch.ones(1))

    def forward(self, x):
        return self.w1 * torch.sin(x) + self.w2 * torch.cos(x)


class Block(nn.Module):
    """x + MHA(a1(x), kv, kv) (kv None: a1(x) itself), then x + FF(a2(x)),
    FF = Linear(d_model, d_ff) a Linear(d_ff, d_ff) a Linear(d_ff, d_model)."""

    def __init__(self, d_model, d_ff, heads):
        super().__init__()
        self.act1, self.act2 = WaveAct(), WaveAct()
        self.attn = nn.MultiheadAttention(d_model, heads, batch_first=True)
        self.ff = nn.Sequential(nn.Linear(d_model, d_ff), WaveAct(), nn.Linear(d_ff, d_ff), WaveAct(),
                                nn.Linear(d_ff, d_model))

    def forward(self, x, kv=None):
        h = self.act1(x)
        src = h if kv is None else kv
        x = x + self.attn(h, src, src, need_weights=False)[0]
        return x + self.ff(self.act2(x))


class PINNsFormer(nn.Module):
    """AdityaLab's encoder-decoder (00d790f, model/pinnsformer.py), `layers`
    encoder and decoder blocks (1 as released):
        e = emb(s); enc = enc_act(enc blocks(e)); dec = dec_act(dec blocks(e, enc)); head(dec)
    head = Linear(d_model, d_hidden) a Linear(d_hidden, d_hidden) a Linear(d_hidden, d_out)."""

    def __init__(self, d_in=2, d_out=1, d_model=32, d_ff=256, d_hidden=512, heads=2, layers=1):
        super().__init__()
        self.emb = nn.Linear(d_in, d_model)
        self.enc = nn.ModuleList([Block(d_model, d_ff, heads) for _ in range(layers)])
        self.dec = nn.ModuleList([Block(d_model, d_ff, heads) for _ in range(layers)])
        self.enc_act, self.dec_act = WaveAct(), WaveAct()
        self.head = nn.Sequential(nn.Linear(d_model, d_hidden), WaveAct(), nn.Linear(d_hidden, d_hidden),
                                  WaveAct(), nn.Linear(d_hidden, d_out))

    def forward(self, s):
        e = self.emb(s)
        enc = e
        for blk in self.enc:
            enc = blk(enc)
        enc = self.enc_act(enc)
        dec = e
        for blk in self.dec:
            dec = blk(dec, enc)
        return self.head(self.dec_act(dec))


def init_weights(net):
    """The released demos' init_weights: every nn.Linear (the attention's
    out_proj too) Xavier uniform with biases 0.01; the packed in_proj keeps
    nn.MultiheadAttention's own init (one Xavier bound, zero biases)."""
    for m in net.modules():
        if isinstance(m, nn.Linear):
            nn.init.xavier_uniform_(m.weight)
            nn.init.constant_(m.bias, 0.01)


def tokens(p, k, dt):
    """(n, d) points -> (n, k, d): token i has its LAST input shifted by i dt."""
    shift = torch.zeros(k, p.shape[1], dtype=p.dtype, device=p.device)
    shift[:, -1] = dt * torch.arange(k, dtype=p.dtype, device=p.device)
    return p[:, None, :] + shift[None]
