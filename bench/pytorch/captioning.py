#!/usr/bin/python3
"""The captioning workload in PyTorch: Show, Attend and Tell's decoder as
attnzoo builds it (bench/corpus/captioning.toml), over precomputed region
features read through a memory map.

    a_i = tanh(W_r r_i + b_r)                            the features encoder, [B,S,H]
    abar = mean_i a_i
    h_0 = tanh(W_init abar + b_init);  c_0 = tanh(W_initc abar + b_initc)
    e_ti = v . tanh(W_q h_{t-1} + W_k a_i + b)           concat scorer, A = --attention
    alpha_t = softmax_i(e_ti);  z_t = sigmoid(w_beta . h_{t-1} + b_beta) * sum_i alpha_ti a_i
    h_t, c_t = LSTM([E[y_{t-1}]; z_t], (h_{t-1}, c_{t-1}))
    o_t = tanh(W_s h_t + W_c z_t + b_o);  logits_t = W_V o_t + b_V

Loss: mean token cross-entropy plus the doubly stochastic penalty
lambda/B * sum_b sum_i (1 - sum_t alpha_bti)^2 over each caption's real
steps (</s> included). nn.LSTMCell's b_hh is held at zero and not counted
(attnzoo's LSTM has one bias), so the parameter count equals attnzoo's.

The data as attnzoo's features task reads them (tasks/captioning): a
Flickr8k-format captions file ("IMAGE#N<TAB>caption"; images in order of
first appearance, row i of the N x S x D float32 .npy the i-th image),
captions tokenized as the tsv task's words, lowercased; the images
shuffled with the seed (Go's PCG, bit for bit) and cut into test, dev and
train; the vocabulary from train's captions at --min-count. Training:
--steps batches of --batch (image, caption) pairs of train drawn at random,
captions padded to their longest; Adam (lr 1e-3), global-norm clip 5. Then
greedy decoding of the test images in split order, --batch at a time, at
most 2 * (longest train caption) + 10 tokens.

Prints one JSON line as corpus.py does.

usage: OPENBLAS_NUM_THREADS=1 /usr/bin/python3 bench/pytorch/captioning.py --npy FILE --captions FILE
           [--steps 30] [--batch 64] [--embed 256] [--hidden 512] [--attention 512]
           [--lambda 1] [--min-count 2] [--seed 1] [--threads 1] [--only bench|params]
"""
import argparse
import json

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from benchlib import (BOS, EOS, PAD, Vocab, add_attentional, add_concat, concat_scores, greedy, held_bias,
                      openblas_corename, pad, report, split_groups, tab_lines, tokenize, train_steps, workload_args)


def read_flickr(path):
    """tasks/captioning's parseFlickr: [(image, [caption tokens, ...])] in
    order of first appearance."""
    images, index = [], {}
    for n, line in tab_lines(path, 'no tab between IMAGE#N and the caption'):
        key, text = line.split('\t', 1)
        key = key.strip()
        i = key.rfind('#')
        if i <= 0 or not key[i + 1:].isdigit():
            raise SystemExit('%s:%d: %r: want IMAGE#N' % (path, n, key))
        toks = tokenize(text)
        if not toks:
            raise SystemExit('%s:%d: empty caption for %s' % (path, n, key))
        img = key[:i]
        if img not in index:
            index[img] = len(images)
            images.append((img, []))
        images[index[img]][1].append(toks)
    return images


class ShowAttendTell(nn.Module):
    def __init__(self, vocab, region, embed, hidden, attention):
        super().__init__()
        H, A = hidden, attention
        self.reg = nn.Linear(region, H)
        self.emb = nn.Embedding(vocab, embed)
        self.init = nn.Linear(H, H)
        self.init_c = nn.Linear(H, H)
        add_concat(self, H, A)  # W_q, W_k, b, v
        self.beta = nn.Linear(H, 1)
        self.dec = nn.LSTMCell(embed + H, H)
        add_attentional(self, H)  # W_s, W_c
        self.vocab = nn.Linear(H, vocab)
        self.held = held_bias(self.dec.bias_hh, 4 * H)

    def num_params(self):
        return sum(p.numel() for p in self.parameters()) - self.held

    def encode(self, regions):
        a = torch.tanh(self.reg(regions))                        # [B,S,H]
        m = a.mean(1)
        return a, self.W_k(a) + self.b, (torch.tanh(self.init(m)), torch.tanh(self.init_c(m)))

    def step(self, a, K, st, y):
        h = st[0]
        alpha = torch.softmax(concat_scores(self, K, h), 1)      # [B,S]
        z = torch.sigmoid(self.beta(h)) * torch.bmm(alpha.unsqueeze(1), a).squeeze(1)
        return self.dec(torch.cat([y, z], 1), st), z, alpha

    def forward(self, regions, tgt_in):
        a, K, st = self.encode(regions)
        ys = self.emb(tgt_in)
        states, ctxs, alphas = [], [], []
        for t in range(tgt_in.shape[1]):
            st, z, alpha = self.step(a, K, st, ys[:, t])
            states.append(st[0])
            ctxs.append(z)
            alphas.append(alpha)
        o = torch.tanh(self.W_s(torch.stack(states, 1)) + self.W_c(torch.stack(ctxs, 1)))
        return self.vocab(o), torch.stack(alphas, 1)             # [B,T,V], [B,T,S]

    @torch.no_grad()
    def greedy(self, regions, max_len):
        a, K, st = self.encode(regions)

        def step(y):
            nonlocal st
            st, z, _ = self.step(a, K, st, self.emb(y))
            return self.vocab(torch.tanh(self.W_s(st[0]) + self.W_c(z))).argmax(1)
        return greedy(regions.shape[0], max_len, step)  # [B, steps run]


def main():
    ap = argparse.ArgumentParser(description='the captioning workload in PyTorch (see the docstring)')
    ap.add_argument('--npy', help='N x S x D float32 region features (with --only params: not read)')
    ap.add_argument('--captions', help='the Flickr8k-format captions file')
    workload_args(ap, batch=64)
    ap.add_argument('--attention', type=int, default=512)
    ap.add_argument('--lambda', dest='lam', type=float, default=1.0)
    ap.add_argument('--vocab', type=int, help='with --only params and no --captions: the vocabulary size')
    ap.add_argument('--region-size', type=int, help='with --only params and no --npy: D')
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    out = {'system': 'pytorch-%s' % torch.__version__, 'workload': 'captioning', 'blas_core': openblas_corename(),
           'threads': torch.get_num_threads(), 'embed': a.embed, 'hidden': a.hidden, 'attention': a.attention,
           'batch': a.batch}
    if a.only == 'params' and a.vocab and a.region_size:
        out.update({'vocab': a.vocab, 'params': ShowAttendTell(a.vocab, a.region_size, a.embed, a.hidden, a.attention).num_params()})
        print(json.dumps(out))
        return
    if not a.npy or not a.captions:
        ap.error('want --npy and --captions')
    feats = np.load(a.npy, mmap_mode='r')
    images = read_flickr(a.captions)
    if feats.ndim != 3 or feats.shape[0] != len(images):
        raise SystemExit('%s: shape %s: want %d images (one per image of %s) x regions x size'
                         % (a.npy, feats.shape, len(images), a.captions))
    rows = {img: i for i, (img, _) in enumerate(images)}
    train, dev, test = split_groups(images, a.dev, a.test, a.seed)
    vocab = Vocab([c for _, caps in train for c in caps], a.min_count)
    model = ShowAttendTell(len(vocab), feats.shape[2], a.embed, a.hidden, a.attention)
    out.update({'vocab': len(vocab), 'regions': feats.shape[1], 'region_size': feats.shape[2],
                'train': sum(len(c) for _, c in train), 'dev': len(dev), 'test': len(test), 'params': model.num_params()})
    if a.only == 'params':
        print(json.dumps(out))
        return
    pairs = [(rows[img], vocab.encode(c)) for img, caps in train for c in caps]
    max_len = 2 * max(len(c) for _, c in pairs) + 10
    regions = lambda idx: torch.from_numpy(np.ascontiguousarray(feats[idx], dtype=np.float32))

    def batch_loss(gen):
        pick = [pairs[i] for i in torch.randint(len(pairs), (a.batch,), generator=gen).tolist()]
        r = regions(sorted(set(p[0] for p in pick)))
        where = {row: k for k, row in enumerate(sorted(set(p[0] for p in pick)))}
        r = r[[where[p[0]] for p in pick]]
        tin = pad([p[1] for p in pick], prefix=[BOS])
        tout = pad([p[1] for p in pick], suffix=[EOS])
        logits, alpha = model(r, tin)
        l = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tout.reshape(-1), ignore_index=PAD)
        real = (tout != PAD).unsqueeze(2).to(alpha.dtype)          # [B,T,1]: the caption's steps, </s> included
        return l + a.lam / a.batch * ((1 - (alpha * real).sum(1)) ** 2).sum()
    times, loss = train_steps(model, a.steps, a.seed, batch_loss)
    model.eval()
    report(out, a.steps, times, loss, test, a.batch,
           lambda images: model.greedy(regions([rows[img] for img, _ in images]), max_len))


if __name__ == '__main__':
    main()
