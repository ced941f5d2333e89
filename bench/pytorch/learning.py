#!/usr/bin/python3
"""The learning-curve reference: corpus.py's model (attnzoo's birnn encoder,
bahdanau decoder, concat scorer) trained on a real corpus, its mean
training loss printed every 50 steps, then its greedy translation of the
test split written to a file for `attnzoo eval bleu` (make bench-learning,
bench/README.md).

The data: split files as a corpus ships them (--train, --dev, --test
prefixes with --src and --tgt suffixes, e.g. Multi30k's
train.lc.norm.tok.de), read with attnzoo's "space" tokenizer (white space
only: text tokenized beforehand), or a TSV file split as corpus.py splits
it (--tsv, the word tokenizer). Vocabularies from train at --min-count.

The initialisation, as attnzoo's [model] init_embed and init_weights
(package initializers) name it: --init-embed and --init-weights take
normal(σ), uniform(a), glorot or pytorch, and every parameter is drawn as
attnzoo draws it. "pytorch" draws each as PyTorch's module does
(nn.Embedding N(0, 1); nn.Linear U(±1/√fan_in), its bias too; nn.GRU
U(±1/√H)); the concat scorer's v and b, which are not PyTorch modules,
as the matrix and bias of a linear map (v: A → 1, b: W_k's bias).

Training as attnzoo's: --steps batches of --batch pairs drawn at random
with replacement, padded to their longest; decoder input <s> y, output y
</s>; mean token cross-entropy over the real tokens (</s> counted, padding
not); Adam (lr --lr, β = (0.9, 0.999), ε = 1e-8, bias-corrected),
gradients clipped to global norm --clip before the update.

Prints one JSON line per 50 steps ({"step": 50, "loss": mean of steps
1-50}), then a summary line (test hypotheses file, seconds). --only replay
FILE runs attnzoo's TestTorchSameTraining: the model in float64 from
attnzoo's parameters, the batches it gives, one loss per step.

usage: OPENBLAS_NUM_THREADS=1 /usr/bin/python3 bench/pytorch/learning.py
           --train DIR/train --dev DIR/val --test DIR/test_2016_flickr --src de --tgt en
           [--steps 500] [--batch 128] [--embed 256] [--hidden 256] [--lr 1e-3] [--clip 1]
           [--init-embed pytorch] [--init-weights pytorch] [--hyp FILE] [--seed 1] [--threads 1]
       /usr/bin/python3 bench/pytorch/learning.py --only replay FILE
"""
import argparse
import json
import math
import re
import sys
import time

import torch
import torch.nn.functional as F

from benchlib import PAD, BOS, EOS, Vocab, load_bahdanau, openblas_corename, pad
from corpus import Translator, load

EVERY = 50


def parse_init(spec):
    """An initialiser as attnzoo's keys write it: (name, number or None)."""
    m = re.fullmatch(r'\s*([a-z]+)\s*(?:\(\s*([^)]*?)\s*\))?\s*', spec)
    if not m or m.group(1) not in ('normal', 'uniform', 'glorot', 'pytorch'):
        raise SystemExit('unknown initialiser %r (have: glorot, normal(σ), pytorch, uniform(a))' % spec)
    name, arg = m.group(1), m.group(2)
    if (arg is None) != (name in ('glorot', 'pytorch')):
        raise SystemExit('initialiser %r: normal and uniform take one number, glorot and pytorch none' % spec)
    return name, None if arg is None else float(arg)


def draw(t, role, fan_in, init):
    """Fills tensor t as attnzoo's initializers package draws a parameter of
    this role ('embedding', 'weight', 'bias', 'cell', 'cellbias'); fan_in is
    a linear map's inputs, or a cell's hidden size."""
    name, arg = init
    with torch.no_grad():
        if name == 'pytorch':
            if role == 'embedding':
                t.normal_(0, 1)
            else:
                b = 1 / math.sqrt(fan_in)
                t.uniform_(-b, b)
        elif role in ('bias', 'cellbias'):
            t.zero_()
        elif name == 'normal':
            t.normal_(0, arg)
        elif name == 'uniform':
            t.uniform_(-arg, arg)
        else:  # glorot: [out, in], a vector [n] as [n, 1]
            out, inn = t.shape[0], (t.shape[1] if t.dim() > 1 else 1)
            b = math.sqrt(6 / (inn + out))
            t.uniform_(-b, b)


def initialise(m, embed_init, weights_init, embed, H):
    """Draws every parameter of corpus.py's Translator as attnzoo draws its
    counterpart (seq2seq/model.go): nn.GRU's b_hh r and z blocks stay held
    at zero; the decoder cell's input matrix is attnzoo's two blocks
    W_0 (the embedding's) and W_1 (the context's), drawn apart."""
    h = H // 2
    w = weights_init
    draw(m.src_emb.weight, 'embedding', 0, embed_init)
    draw(m.tgt_emb.weight, 'embedding', 0, embed_init)
    for sfx in ('l0', 'l0_reverse'):
        draw(getattr(m.enc, 'weight_ih_' + sfx), 'cell', h, w)
        draw(getattr(m.enc, 'weight_hh_' + sfx), 'cell', h, w)
        draw(getattr(m.enc, 'bias_ih_' + sfx), 'cellbias', h, w)
        draw(getattr(m.enc, 'bias_hh_' + sfx)[2 * h:], 'cellbias', h, w)
    draw(m.dec.weight_ih[:, :embed], 'cell', H, w)
    draw(m.dec.weight_ih[:, embed:], 'cell', H, w)
    draw(m.dec.weight_hh, 'cell', H, w)
    draw(m.dec.bias_ih, 'cellbias', H, w)
    draw(m.dec.bias_hh[2 * H:], 'cellbias', H, w)
    A = m.v.shape[0]
    for lin in (m.W_q, m.W_k):
        draw(lin.weight, 'weight', H, w)
    draw(m.v, 'weight', A, w)
    draw(m.b, 'bias', H, w)
    for lin in (m.init, m.W_s, m.W_c, m.vocab):
        draw(lin.weight, 'weight', lin.in_features, w)
        if lin.bias is not None:
            draw(lin.bias, 'bias', lin.in_features, w)


def read_split(prefix, src, tgt):
    """A split's two files, PREFIX.SRC and PREFIX.TGT, line i a pair, white
    space tokens (attnzoo's "space" tokenizer)."""
    with open('%s.%s' % (prefix, src), encoding='utf-8') as fs, open('%s.%s' % (prefix, tgt), encoding='utf-8') as ft:
        a, b = fs.read().split('\n'), ft.read().split('\n')
    if a and a[-1] == '':
        a.pop()
    if b and b[-1] == '':
        b.pop()
    if len(a) != len(b):
        raise SystemExit('%s: %s has %d lines, %s has %d' % (prefix, src, len(a), tgt, len(b)))
    return [(x.split(), y.split()) for x, y in zip(a, b)]


def adam_steps(model, batches, lr, clip, on_loss, device='cpu'):
    """attnzoo's training: for each batch (src, lens, tgt_in, tgt_out), the
    mean token cross-entropy, its gradients clipped to global norm clip
    (0: none), then one Adam step. on_loss(i, loss) after each. The batch
    goes to device first (its lengths stay on the host, as
    pack_padded_sequence wants them)."""
    opt = torch.optim.Adam(model.parameters(), lr=lr, betas=(0.9, 0.999), eps=1e-8)
    for i, (src, lens, tin, tout) in enumerate(batches):
        src, tin, tout = src.to(device), tin.to(device), tout.to(device)
        opt.zero_grad()
        logits = model(src, lens, tin)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tout.reshape(-1), ignore_index=PAD)
        loss.backward()
        if clip > 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        opt.step()
        on_loss(i, loss.item())


def replay(path):
    """--only replay: attnzoo's parameters and batches (JSON: embed, hidden,
    src_vocab, tgt_vocab, lr, clip, dtype (float64 or float32), params {name: flat list}, batches
    [{src, tgt_in, tgt_out}] padded with 0); prints {"losses": [...]}."""
    with open(path) as fh:
        d = json.load(fh)
    dt = torch.float32 if d.get('dtype') == 'float32' else torch.float64
    torch.set_default_dtype(dt)
    E, H = d['embed'], d['hidden']
    model = Translator(d['src_vocab'], d['tgt_vocab'], E, H)
    p = d['params']
    t = lambda name, *shape: torch.tensor(p[name], dtype=dt).reshape(*shape)
    h = H // 2
    with torch.no_grad():
        model.src_emb.weight.copy_(t('src.emb', d['src_vocab'], E))
        model.tgt_emb.weight.copy_(t('tgt.emb', d['tgt_vocab'], E))
        for sfx, side in (('l0', 'fwd'), ('l0_reverse', 'bwd')):
            getattr(model.enc, 'weight_ih_' + sfx).copy_(t('enc.%s.W_0' % side, 3 * h, E))
            getattr(model.enc, 'weight_hh_' + sfx).copy_(t('enc.%s.U' % side, 3 * h, h))
            getattr(model.enc, 'bias_ih_' + sfx).copy_(t('enc.%s.b' % side, 3 * h))
            getattr(model.enc, 'bias_hh_' + sfx).copy_(torch.cat([torch.zeros(2 * h), t('enc.%s.b_hn' % side, h)]))
    load_bahdanau(model, t, E, H, d['tgt_vocab'])
    batches = []
    for b in d['batches']:
        src = torch.tensor(b['src'], dtype=torch.long)
        batches.append((src, (src != PAD).sum(1), torch.tensor(b['tgt_in'], dtype=torch.long),
                        torch.tensor(b['tgt_out'], dtype=torch.long)))
    losses = []
    adam_steps(model, batches, d['lr'], d['clip'], lambda i, l: losses.append(l))
    print(json.dumps({'losses': losses}))


def main():
    ap = argparse.ArgumentParser(description='the learning-curve reference (see the docstring)')
    ap.add_argument('--train', help='split files PREFIX.SRC and PREFIX.TGT')
    ap.add_argument('--dev', help='split files (read for their size only)')
    ap.add_argument('--test', help='split files, translated after training')
    ap.add_argument('--src', default='de')
    ap.add_argument('--tgt', default='en')
    ap.add_argument('--tsv', help='instead of split files: source<TAB>target lines, split as corpus.py splits them')
    ap.add_argument('--steps', type=int, default=500)
    ap.add_argument('--batch', type=int, default=128)
    ap.add_argument('--embed', type=int, default=256)
    ap.add_argument('--hidden', type=int, default=256)
    ap.add_argument('--min-count', type=int, default=2)
    ap.add_argument('--lr', type=float, default=1e-3)
    ap.add_argument('--clip', type=float, default=1.0)
    ap.add_argument('--init-embed', default='pytorch')
    ap.add_argument('--init-weights', default='pytorch')
    ap.add_argument('--hyp', help='write the test translations here (one line each, tokens joined by spaces)')
    ap.add_argument('--ref', help='write the test references here, as --hyp (for attnzoo eval bleu --tokenize none)')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--threads', type=int, default=1)
    ap.add_argument('--device', default='cpu', help='cpu or cuda (attnzoo --device gpu trains the other side on a GPU)')
    ap.add_argument('--only', choices=['train', 'replay'], default='train')
    ap.add_argument('replay_file', nargs='?')
    a = ap.parse_args()
    if a.only == 'replay':
        if not a.replay_file:
            ap.error('--only replay: want the JSON file attnzoo wrote')
        return replay(a.replay_file)
    if a.hidden % 2:
        ap.error('--hidden: birnn gives each direction hidden/2 units, so it must be even, got %d' % a.hidden)
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    if a.tsv:
        (train, dev, test), sv, tv = load(a.tsv, 0.1, 0.1, a.seed, a.min_count)
    elif a.train and a.test:
        train, test = read_split(a.train, a.src, a.tgt), read_split(a.test, a.src, a.tgt)
        dev = read_split(a.dev, a.src, a.tgt) if a.dev else []
        sv, tv = Vocab([s for s, _ in train], a.min_count), Vocab([t for _, t in train], a.min_count)
    else:
        ap.error('want --train and --test prefixes (split files) or --tsv FILE')
    model = Translator(len(sv), len(tv), a.embed, a.hidden)
    initialise(model, parse_init(a.init_embed), parse_init(a.init_weights), a.embed, a.hidden)
    model.to(a.device)
    head = {'system': 'pytorch-%s' % torch.__version__, 'blas_core': openblas_corename(), 'threads': torch.get_num_threads(),
            'init_embed': a.init_embed, 'init_weights': a.init_weights, 'src_vocab': len(sv), 'tgt_vocab': len(tv),
            'train': len(train), 'dev': len(dev), 'test': len(test), 'params': model.num_params(),
            'device': torch.cuda.get_device_name() if a.device.startswith('cuda') else 'cpu'}
    print(json.dumps(head))
    sys.stdout.flush()
    tr_src = [sv.encode(s) for s, _ in train]
    tr_tgt = [tv.encode(t) for _, t in train]
    gen = torch.Generator().manual_seed(a.seed)

    def batches():
        for _ in range(a.steps):
            idx = torch.randint(len(train), (a.batch,), generator=gen).tolist()
            yield (pad([tr_src[i] for i in idx]), torch.tensor([len(tr_src[i]) for i in idx]),
                   pad([tr_tgt[i] for i in idx], prefix=[BOS]), pad([tr_tgt[i] for i in idx], suffix=[EOS]))
    window = []
    t0 = time.perf_counter()

    def on_loss(i, loss):
        window.append(loss)
        if (i + 1) % EVERY == 0 or i + 1 == a.steps:
            print(json.dumps({'step': i + 1, 'loss': round(sum(window) / len(window), 4)}))
            sys.stdout.flush()
            window.clear()
    adam_steps(model, batches(), a.lr, a.clip, on_loss, a.device)
    train_s = time.perf_counter() - t0
    model.eval()
    max_src = max(len(s) for part in (train, dev, test) for s, _ in part)
    lines = []
    for i in range(0, len(test), a.batch):
        srcs = [sv.encode(s) for s, _ in test[i:i + a.batch]]
        out = model.greedy(pad(srcs).to(a.device), torch.tensor([len(s) for s in srcs]), 2 * max_src + 10).tolist()
        for row in out:
            toks = []
            for y in row:
                if y == EOS:
                    break
                toks.append(tv.tokens[y])
            lines.append(' '.join(toks))
    for path, out in ((a.hyp, lines), (a.ref, [' '.join(t) for _, t in test])):
        if path:
            with open(path, 'w', encoding='utf-8') as fh:
                fh.write(''.join(l + '\n' for l in out))
    print(json.dumps({'done': True, 'steps': a.steps, 'train_s': round(train_s, 1), 'hyp': a.hyp}))


if __name__ == '__main__':
    main()
