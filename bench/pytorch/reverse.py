#!/usr/bin/python3
"""The bench workload in PyTorch: attnzoo's Bahdanau model, layer for layer.

The model `attnzoo bench` trains (seq2seq.AnchorConfig with the bench's sizes):

    x_j = E_src[src_j]                                  embedding 64
    h_j = GRU(x_j, h_{j-1}), h_0 = 0                    unidirectional encoder
    s_0 = tanh(W_init h_S + b_init)                     the bridge
    e_tj = v . tanh(W_q s_{t-1} + W_k h_j + b)          additive score, A = hidden
    a_t = softmax_j(e_tj);  c_t = sum_j a_tj h_j
    s_t = GRU([E_tgt[y_{t-1}]; c_t], s_{t-1})           decoder fed [y; c]
    o_t = tanh(W_s s_t + W_c c_t + b_o)                 attentional layer, all t at once
    logits_t = W_V o_t + b_V                            vocabulary layer

Mean token cross-entropy with teacher forcing; Adam (lr 1e-3, betas 0.9,
0.999, eps 1e-8); float32. Both GRUs are nn.GRU / nn.GRUCell, whose biases
b_ih and b_hh overlap: only b_hh's n block acts apart from b_ih (inside
r * (U_n h + b_hn)). attnzoo's GRU (cells/gru.go) has b [3H] and b_hn [H],
so here b_hh's r and z blocks are held at zero (zero at the start, their
gradient zeroed by a hook, so Adam never moves them) and not counted: the
parameter count printed is the number of numbers training can change,
and equals the Go model's exactly.

The data: sources of --src-len tokens drawn uniformly from the ids after
the four reserved ones (0 pad, 1 unk, 2 <s>, 3 </s>), targets their
reversal; decoder input <s> y_1..y_n, output y_1..y_n </s>.

Timed as `attnzoo bench` times: the median of the training steps after
--warmup untimed ones (data drawn before the clock starts), and greedy
decoding of one batch (src-len + 1 steps, the last </s>), median of --reps
after 3 untimed. Prints one JSON line, with blas_core: the kernel of the
OpenBLAS torch loaded (openblas_get_corename; `make bench-compare` leaves
it to OpenBLAS's choice for the processor).

--only params prints the parameter count without training; --only check
--check FILE computes, in float64, the loss and gradients of attnzoo's
parameters on attnzoo's batch (TestTorchSameFunction in cmd/attnzoo
compares them with attnzoo's own).

usage: OPENBLAS_NUM_THREADS=1 /usr/bin/python3 bench/pytorch/reverse.py
           [--hidden 128] [--batch 64] [--src-len 12] [--vocab 32]
           [--steps 55] [--warmup 5] [--reps 20] [--threads 1]
           [--only bench|params|check] [--check FILE] [--device cpu|cuda]

--device cuda runs the model, the batches and Adam on the first CUDA GPU
(`make gpu-check` compares it with `attnzoo bench --device gpu`); the
timing waits for the GPU at the end of each step and each decoding.
"""
import argparse
import json
import statistics
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

from benchlib import BOS, EOS, SPECIALS, add_bahdanau, concat_scores, held_bias, load_bahdanau, maxrss_mb, openblas_corename

RESERVED = len(SPECIALS)
EMBED = 64


class Bahdanau(nn.Module):
    def __init__(self, vocab, embed, hidden):
        super().__init__()
        H, A = hidden, hidden
        self.src_emb = nn.Embedding(vocab, embed)
        self.tgt_emb = nn.Embedding(vocab, embed)
        self.enc = nn.GRU(embed, H, batch_first=True)
        add_bahdanau(self, embed, H, A)             # init, W_q, W_k, b, v, dec, W_s, W_c
        self.vocab = nn.Linear(H, vocab)
        self.held = held_bias(self.enc.bias_hh_l0, 2 * H) + held_bias(self.dec.bias_hh, 2 * H)  # b_hh's r and z blocks

    def num_params(self):
        return sum(p.numel() for p in self.parameters()) - self.held

    def encode(self, src):
        Henc, hT = self.enc(self.src_emb(src))              # [B,S,H], [1,B,H]
        s0 = torch.tanh(self.init(hT[0]))
        return Henc, self.W_k(Henc) + self.b, s0            # keys projected once, with the bias

    def step(self, Henc, K, s, y):
        a = torch.softmax(concat_scores(self, K, s), 1)         # [B,S]
        c = torch.bmm(a.unsqueeze(1), Henc).squeeze(1)          # [B,H]
        return self.dec(torch.cat([y, c], 1), s), c

    def attentional(self, s, c):
        return torch.tanh(self.W_s(s) + self.W_c(c))

    def forward(self, src, tgt_in):
        Henc, K, s = self.encode(src)
        ys = self.tgt_emb(tgt_in)                            # [B,T,E]
        states, contexts = [], []
        for t in range(tgt_in.shape[1]):
            s, c = self.step(Henc, K, s, ys[:, t])
            states.append(s)
            contexts.append(c)
        o = self.attentional(torch.stack(states, 1), torch.stack(contexts, 1))  # all steps at once
        return self.vocab(o)                                 # [B,T,V]

    @torch.no_grad()
    def greedy(self, src, steps):
        Henc, K, s = self.encode(src)
        y = torch.full((src.shape[0],), BOS, dtype=torch.long, device=src.device)
        out = []
        for _ in range(steps):
            s, c = self.step(Henc, K, s, self.tgt_emb(y))
            y = self.vocab(self.attentional(s, c)).argmax(1)
            out.append(y)
        return torch.stack(out, 1)


# attnzoo's parameter names (seq2seq.Model.Params) and where each lives here.
def load_attnzoo(model, params, hidden, embed):
    """Sets the model's parameters from attnzoo's, given as {name: flat list}."""
    H = hidden
    t = lambda name, *shape: torch.tensor(params[name], dtype=torch.float64).reshape(*shape)
    zeros = torch.zeros(2 * H, dtype=torch.float64)
    V = model.vocab.out_features
    with torch.no_grad():
        model.src_emb.weight.copy_(t('src.emb', V, embed))
        model.tgt_emb.weight.copy_(t('tgt.emb', V, embed))
        model.enc.weight_ih_l0.copy_(t('enc.fwd.W_0', 3 * H, embed))
        model.enc.weight_hh_l0.copy_(t('enc.fwd.U', 3 * H, H))
        model.enc.bias_ih_l0.copy_(t('enc.fwd.b', 3 * H))
        model.enc.bias_hh_l0.copy_(torch.cat([zeros, t('enc.fwd.b_hn', H)]))
    load_bahdanau(model, t, embed, H, V)


def attnzoo_grads(model, hidden, embed):
    """The gradients in attnzoo's names and layouts (flat lists)."""
    H, m = hidden, model
    f = lambda x: x.reshape(-1).tolist()
    return {
        'src.emb': f(m.src_emb.weight.grad), 'tgt.emb': f(m.tgt_emb.weight.grad),
        'enc.fwd.W_0': f(m.enc.weight_ih_l0.grad), 'enc.fwd.U': f(m.enc.weight_hh_l0.grad),
        'enc.fwd.b': f(m.enc.bias_ih_l0.grad), 'enc.fwd.b_hn': f(m.enc.bias_hh_l0.grad[2 * H:]),
        'init.W': f(m.init.weight.grad), 'init.b': f(m.init.bias.grad),
        'attn.W_q': f(m.W_q.weight.grad), 'attn.W_k': f(m.W_k.weight.grad), 'attn.b': f(m.b.grad), 'attn.v': f(m.v.grad),
        'dec.W_0': f(m.dec.weight_ih.grad[:, :embed]), 'dec.W_1': f(m.dec.weight_ih.grad[:, embed:]),
        'dec.U': f(m.dec.weight_hh.grad), 'dec.b': f(m.dec.bias_ih.grad), 'dec.b_hn': f(m.dec.bias_hh.grad[2 * H:]),
        'out.W_s': f(m.W_s.weight.grad), 'out.W_c': f(m.W_c.weight.grad), 'out.b': f(m.W_c.bias.grad),
        'vocab.W': f(m.vocab.weight.grad), 'vocab.b': f(m.vocab.bias.grad),
    }


def check(args):
    """--only check: the loss and gradients, in float64, of attnzoo's
    parameters and batch (a JSON file: params {name: flat list}, src, tgt_in,
    tgt_out); prints them as one JSON line."""
    with open(args.check) as fh:
        d = json.load(fh)
    torch.set_default_dtype(torch.float64)
    model = Bahdanau(args.vocab, EMBED, args.hidden)
    load_attnzoo(model, d['params'], args.hidden, EMBED)
    src, tin, tout = (torch.tensor(d[k], dtype=torch.long) for k in ('src', 'tgt_in', 'tgt_out'))
    loss = F.cross_entropy(model(src, tin).reshape(-1, args.vocab), tout.reshape(-1))
    loss.backward()
    print(json.dumps({'loss': loss.item(), 'grads': attnzoo_grads(model, args.hidden, EMBED)}))


def batch(n, src_len, vocab, gen):
    src = torch.randint(RESERVED, vocab, (n, src_len), generator=gen)
    rev = src.flip(1)
    tgt_in = torch.cat([torch.full((n, 1), BOS, dtype=torch.long), rev], 1)
    tgt_out = torch.cat([rev, torch.full((n, 1), EOS, dtype=torch.long)], 1)
    return src, tgt_in, tgt_out


def at_least(least=1):
    def parse(s):
        try:
            v = int(s)
        except ValueError:
            raise argparse.ArgumentTypeError('want a whole number, got %r' % s)
        if v < least:
            raise argparse.ArgumentTypeError('want ≥ %d, got %d' % (least, v))
        return v
    return parse


def main():
    ap = argparse.ArgumentParser(description='the bench workload in PyTorch (see the docstring)')
    ap.add_argument('--hidden', type=at_least(), default=128)
    ap.add_argument('--batch', type=at_least(), default=64)
    ap.add_argument('--src-len', type=at_least(), default=12)
    ap.add_argument('--vocab', type=at_least(RESERVED + 1), default=32)
    ap.add_argument('--steps', type=at_least(), default=55, help='training steps, the first --warmup untimed')
    ap.add_argument('--warmup', type=at_least(0), default=5)
    ap.add_argument('--reps', type=at_least(), default=20, help='greedy decodings timed (after 3 untimed)')
    ap.add_argument('--threads', type=at_least(), default=1, help='torch.set_num_threads')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--device', choices=['cpu', 'cuda'], default='cpu',
                    help='cuda: the model, the batches and Adam on the first CUDA GPU (cuDNN GRU)')
    ap.add_argument('--only', choices=['bench', 'params', 'check'], default='bench',
                    help='params: print the parameter count and exit; check: see --check')
    ap.add_argument('--check', metavar='FILE', help="with --only check: attnzoo's parameters and a batch (JSON)")
    args = ap.parse_args()
    if args.steps <= args.warmup:
        ap.error('--steps: want more than --warmup (%d), got %d' % (args.warmup, args.steps))
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    if args.only == 'check':
        if not args.check:
            ap.error('--only check: want --check FILE')
        check(args)
        return
    torch.set_default_dtype(torch.float32)
    if args.device == 'cuda' and not torch.cuda.is_available():
        sys.exit('reverse.py: --device cuda: torch %s sees no CUDA GPU' % torch.__version__)
    dev = torch.device(args.device)
    model = Bahdanau(args.vocab, EMBED, args.hidden).to(dev)
    out = {'system': 'pytorch-%s' % torch.__version__, 'blas_core': openblas_corename(),
           'device': torch.cuda.get_device_name(dev) if args.device == 'cuda' else 'cpu',
           'dtype': 'float32', 'threads': torch.get_num_threads(),
           'hidden': args.hidden, 'batch': args.batch, 'src_len': args.src_len, 'vocab': args.vocab,
           'embed': EMBED, 'params': model.num_params()}
    if args.only == 'params':
        print(json.dumps(out))
        return
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    gen = torch.Generator().manual_seed(args.seed)
    data = [tuple(t.to(dev) for t in batch(args.batch, args.src_len, args.vocab, gen)) for _ in range(args.steps)]
    times, loss = [], float('nan')
    for i, (src, tin, tout) in enumerate(data):
        t0 = time.perf_counter()
        opt.zero_grad()
        logits = model(src, tin)
        l = F.cross_entropy(logits.reshape(-1, args.vocab), tout.reshape(-1))
        l.backward()
        opt.step()
        loss = l.item()  # waits for the step (on a GPU too: the optimizer's kernels are queued before)
        if dev.type == 'cuda':
            torch.cuda.synchronize()
        dt = time.perf_counter() - t0
        if i >= args.warmup:
            times.append(dt * 1e3)
    model.eval()
    src = batch(args.batch, args.src_len, args.vocab, gen)[0].to(dev)
    dts = []
    for i in range(3 + args.reps):
        t0 = time.perf_counter()
        model.greedy(src, args.src_len + 1).cpu()  # waits for the GPU
        if i >= 3:
            dts.append((time.perf_counter() - t0) * 1e3)
    dmed = statistics.median(dts)
    out.update({
        'steps_timed': len(times), 'ms_step_median': round(statistics.median(times), 3),
        'ms_step_min': round(min(times), 3), 'ms_step_mean': round(statistics.mean(times), 3),
        'decode_reps': args.reps, 'decode_ms_batch': round(dmed, 3), 'decode_seq_s': round(args.batch / (dmed / 1e3), 1),
        'loss_at_last': round(loss, 4),
        'maxrss_mb': maxrss_mb(),
    })
    print(json.dumps(out))
    sys.stdout.flush()


if __name__ == '__main__':
    main()
