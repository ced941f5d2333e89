#!/usr/bin/python3
"""The corpus workload in PyTorch: attnzoo's tsv translation model over a file.

The model `attnzoo run` trains from bench/corpus/corpus.toml (seq2seq's
birnn encoder, bahdanau decoder, concat scorer), layer for layer:

    x_j = E_src[src_j]                                   embedding E
    →h_j, ←h_j = GRU_fwd, GRU_bwd over x (H/2 units each; padding carries the state)
    h_j = [→h_j; ←h_j];  final = [→h_S; ←h_1]            annotations [B,S,H]
    s_0 = tanh(W_init final + b_init)                    the bridge
    e_tj = v . tanh(W_q s_{t-1} + W_k h_j + b)           additive score, A = H,
    a_t = softmax over the real positions j;  c_t = sum_j a_tj h_j
    s_t = GRU([E_tgt[y_{t-1}]; c_t], s_{t-1})            decoder fed [y; c]
    o_t = tanh(W_s s_t + W_c c_t + b_o)                  attentional layer, all t at once
    logits_t = W_V o_t + b_V

nn.GRU's b_hh r and z blocks are held at zero and not counted, as in
reverse.py, so the parameter count printed equals attnzoo's.

The data as attnzoo's tsv task reads it (tasks/tsv.go; benchlib.py): word
tokens, lowercased; pairs grouped by source sentence, the groups shuffled
with the seed (Go's PCG, bit for bit) and cut into test, dev and train;
vocabularies from train at --min-count, ids 0-3 <pad> <unk> <s> </s>.
Training: --steps batches of --batch pairs drawn at random (with
replacement), each padded to its longest; decoder input <s> y, output y
</s>; mean token cross-entropy over the real tokens; Adam (lr 1e-3),
gradients clipped to global norm 5 (attnzoo's defaults). Then greedy
decoding of the test split in file order, --batch sentences at a time, at
most 2 * (longest source) + 10 tokens, a batch stopping when every
sentence has ended.

Prints one JSON line: params, the vocabularies and splits, train seconds a
step (median and mean of every step, the first included), test decoding
seconds and the decoder steps it ran (summed over the batches: how soon
the model's outputs end sets the decoding time), peak RSS (MiB) and the
OpenBLAS kernel.

usage: OPENBLAS_NUM_THREADS=1 /usr/bin/python3 bench/pytorch/corpus.py --tsv FILE
           [--steps 30] [--batch 128] [--embed 256] [--hidden 512]
           [--min-count 2] [--dev 0.1] [--test 0.1] [--seed 1] [--threads 1]
           [--only bench|params]
"""
import argparse
import json

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from benchlib import (BOS, EOS, PAD, Vocab, add_bahdanau, concat_scores, greedy, held_bias, openblas_corename, pad,
                      report, split_groups, tab_lines, tokenize, train_steps, workload_args)


def read_tsv(path):
    """tasks.ParseTSV: source<TAB>target lines, later columns ignored, blank
    lines skipped; a line without a tab or with a side empty is an error
    naming the line."""
    pairs = []
    for n, line in tab_lines(path, 'no tab separating source and target'):
        a, rest = line.split('\t', 1)
        b = rest.split('\t', 1)[0]
        src, tgt = tokenize(a), tokenize(b)
        if not src or not tgt:
            raise SystemExit('%s:%d: %s is empty after normalisation' % (path, n, 'source' if not src else 'target'))
        pairs.append((src, tgt))
    return pairs


def load(path, dev, test, seed, min_count):
    """The tsv task's Load: (train, dev, test) pairs and the two vocabularies."""
    groups, index = [], {}
    for src, tgt in read_tsv(path):
        k = tuple(src)
        if k not in index:
            index[k] = len(groups)
            groups.append([])
        groups[index[k]].append((src, tgt))
    parts = [[p for g in gs for p in g] for gs in split_groups(groups, dev, test, seed)]
    sv = Vocab([s for s, _ in parts[0]], min_count)
    tv = Vocab([t for _, t in parts[0]], min_count)
    return parts, sv, tv


class Translator(nn.Module):
    def __init__(self, src_vocab, tgt_vocab, embed, hidden):
        super().__init__()
        H, A = hidden, hidden
        self.src_emb = nn.Embedding(src_vocab, embed)
        self.tgt_emb = nn.Embedding(tgt_vocab, embed)
        self.enc = nn.GRU(embed, H // 2, batch_first=True, bidirectional=True)
        add_bahdanau(self, embed, H, A)  # init, W_q, W_k, b, v, dec, W_s, W_c
        self.vocab = nn.Linear(H, tgt_vocab)
        h = H // 2
        self.held = (held_bias(self.enc.bias_hh_l0, 2 * h) + held_bias(self.enc.bias_hh_l0_reverse, 2 * h) +
                     held_bias(self.dec.bias_hh, 2 * H))

    def num_params(self):
        return sum(p.numel() for p in self.parameters()) - self.held

    def encode(self, src, lens):
        S = src.shape[1]
        packed = pack_padded_sequence(self.src_emb(src), lens, batch_first=True, enforce_sorted=False)
        out, hN = self.enc(packed)                                    # hN [2,B,H/2]
        Henc, _ = pad_packed_sequence(out, batch_first=True, total_length=S)  # [B,S,H]
        s0 = torch.tanh(self.init(torch.cat([hN[0], hN[1]], 1)))
        mask = torch.arange(S, device=src.device).unsqueeze(0) < lens.to(src.device).unsqueeze(1)  # [B,S]
        return Henc, self.W_k(Henc) + self.b, s0, mask

    def step(self, Henc, K, mask, s, y):
        e = concat_scores(self, K, s)                                # [B,S]
        a = torch.softmax(e.masked_fill(~mask, float('-inf')), 1)
        c = torch.bmm(a.unsqueeze(1), Henc).squeeze(1)               # [B,H]
        return self.dec(torch.cat([y, c], 1), s), c

    def attentional(self, s, c):
        return torch.tanh(self.W_s(s) + self.W_c(c))

    def forward(self, src, lens, tgt_in):
        Henc, K, s, mask = self.encode(src, lens)
        ys = self.tgt_emb(tgt_in)
        states, contexts = [], []
        for t in range(tgt_in.shape[1]):
            s, c = self.step(Henc, K, mask, s, ys[:, t])
            states.append(s)
            contexts.append(c)
        return self.vocab(self.attentional(torch.stack(states, 1), torch.stack(contexts, 1)))  # [B,T,V]

    @torch.no_grad()
    def greedy(self, src, lens, max_len):
        """attnzoo's Greedy: at most max_len tokens then </s>; stops when
        every row has ended."""
        Henc, K, s, mask = self.encode(src, lens)

        def step(y):
            nonlocal s
            s, c = self.step(Henc, K, mask, s, self.tgt_emb(y))
            return self.vocab(self.attentional(s, c)).argmax(1)
        return greedy(src.shape[0], max_len, step, src.device)  # [B, steps run]


def main():
    ap = argparse.ArgumentParser(description='the corpus workload in PyTorch (see the docstring)')
    ap.add_argument('--tsv', required=True, help='source<TAB>target lines')
    workload_args(ap, batch=128)
    a = ap.parse_args()
    for k in ('steps', 'batch', 'embed', 'hidden', 'min_count', 'threads'):
        if getattr(a, k) < 1:
            ap.error('--%s: want >= 1, got %d' % (k.replace('_', '-'), getattr(a, k)))
    if a.hidden % 2:
        ap.error('--hidden: birnn gives each direction hidden/2 units, so it must be even, got %d' % a.hidden)
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    (train, dev, test), sv, tv = load(a.tsv, a.dev, a.test, a.seed, a.min_count)
    model = Translator(len(sv), len(tv), a.embed, a.hidden)
    out = {'system': 'pytorch-%s' % torch.__version__, 'workload': 'corpus', 'blas_core': openblas_corename(),
           'threads': torch.get_num_threads(), 'embed': a.embed, 'hidden': a.hidden, 'batch': a.batch,
           'src_vocab': len(sv), 'tgt_vocab': len(tv), 'train': len(train), 'dev': len(dev), 'test': len(test),
           'test_head': [' '.join(s) for s, _ in test[:2]], 'params': model.num_params()}
    if a.only == 'params':
        print(json.dumps(out))
        return
    tr_src = [sv.encode(s) for s, _ in train]
    tr_tgt = [tv.encode(t) for _, t in train]
    max_src = max(len(s) for part in (train, dev, test) for s, _ in part)

    def batch_loss(gen):
        idx = torch.randint(len(train), (a.batch,), generator=gen).tolist()
        src = pad([tr_src[i] for i in idx])
        lens = torch.tensor([len(tr_src[i]) for i in idx])
        tin = pad([tr_tgt[i] for i in idx], prefix=[BOS])
        tout = pad([tr_tgt[i] for i in idx], suffix=[EOS])
        logits = model(src, lens, tin)
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tout.reshape(-1), ignore_index=PAD)

    def decode(pairs):
        srcs = [sv.encode(s) for s, _ in pairs]
        return model.greedy(pad(srcs), torch.tensor([len(s) for s in srcs]), 2 * max_src + 10)
    times, loss = train_steps(model, a.steps, a.seed, batch_loss)
    model.eval()
    report(out, a.steps, times, loss, test, a.batch, decode)


if __name__ == '__main__':
    main()
