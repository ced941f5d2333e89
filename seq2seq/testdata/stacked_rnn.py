"""Writes stacked_rnn.json, the PyTorch side of seq2seq's TestStackedTorch.

    python3 seq2seq/testdata/stacked_rnn.py > seq2seq/testdata/stacked_rnn.json

(made with PyTorch 1.13, float64 on the cpu). Each case is a two-layer
nn.GRU or nn.LSTM (dropout 0) with its weights as PyTorch draws them, and
the outputs and gradients of loss = sum(out * wa) + sum(h_n * wf) for fixed
random wa, wf:

- encoder cases: token ids through an nn.Embedding, then the RNN over
  sources of lengths 4 and 2 (pack_padded_sequence, so padding is skipped;
  wa is 0 on padding), uni- and bi-directional: attnzoo's rnn and birnn
  encoders with [model] layers = 2;
- decoder cases: the RNN over given inputs of E + H values from given
  initial states, one sequence of 3 steps: attnzoo's decoder cells with
  [model] layers = 2, the bottom reading [y; c] (E + H), stepped one
  position at a time.
"""
import json

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

torch.manual_seed(35)
dt = torch.float64


def flat(t):
    return [float(x) for x in t.detach().reshape(-1).tolist()]


def rnn_params(rnn, layers, dirs):
    out = {}
    for l in range(layers):
        for d in range(dirs):
            sfx = "_l%d%s" % (l, "_reverse" if d else "")
            for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
                p = getattr(rnn, name + sfx)
                out[name + sfx] = {"shape": list(p.shape), "value": flat(p), "grad": flat(p.grad)}
    return out


def case(cell, bi, decoder):
    V, E, h, L, B = 9, 3, 2, 2, 2
    dirs = 2 if bi else 1
    Cls = nn.GRU if cell == "gru" else nn.LSTM
    c = {"cell": cell, "bi": bi, "decoder": decoder, "layers": L, "embed": E, "hidden": h, "vocab": V}
    if decoder:
        T = 3
        rnn = Cls(E + h, h, num_layers=L, batch_first=True, dtype=dt)
        x = torch.randn(B, T, E + h, dtype=dt)
        h0 = torch.randn(L, B, h, dtype=dt)
        st = h0 if cell == "gru" else (h0, torch.randn(L, B, h, dtype=dt))
        out, hn = rnn(x, st)
        c.update(x=flat(x), h0=flat(h0), steps=T)
        if cell == "lstm":
            c["c0"] = flat(st[1])
        wa = torch.randn(B, T, h, dtype=dt)
    else:
        lens = [4, 2]
        S = max(lens)
        emb = nn.Embedding(V, E, dtype=dt)
        ids = torch.randint(4, V, (B, S))
        rnn = Cls(E, h, num_layers=L, bidirectional=bi, batch_first=True, dtype=dt)
        packed = pack_padded_sequence(emb(ids), torch.tensor(lens), batch_first=True, enforce_sorted=False)
        out, hn = rnn(packed)
        out, _ = pad_packed_sequence(out, batch_first=True, total_length=S)
        wa = torch.randn(B, S, dirs * h, dtype=dt)
        for b, n in enumerate(lens):
            wa[b, n:] = 0
        c.update(ids=[[int(i) for i in row[:n]] for row, n in zip(ids.tolist(), lens)])
    hn = hn if cell == "gru" else hn[0]
    wf = torch.randn(*hn.shape, dtype=dt)
    loss = (out * wa).sum() + (hn * wf).sum()
    loss.backward()
    c.update(wa=flat(wa), wf=flat(wf), out=flat(out), h_n=flat(hn), loss=float(loss))
    c["params"] = rnn_params(rnn, L, dirs)
    if not decoder:
        c["emb"] = {"value": flat(emb.weight), "grad": flat(emb.weight.grad)}
    return c


cases = [case(cell, bi, False) for cell in ("gru", "lstm") for bi in (False, True)]
cases += [case(cell, False, True) for cell in ("gru", "lstm")]
print(json.dumps({"torch": torch.__version__, "cases": cases}))
