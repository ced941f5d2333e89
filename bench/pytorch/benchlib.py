"""What the bench scripts share: the process's figures (peak RSS, the
OpenBLAS kernel), attnzoo's reading of a tab-separated file, its split of
a corpus (Go's math/rand/v2 PCG and Shuffle, bit for bit), its vocabulary
and tokenizer (tasks/tsv.go, tasks/vocab.go), the layers its models share
(the concat scorer, the attentional layer, the Bahdanau decoder), greedy
decoding, and the training loop and summary of corpus.py and
captioning.py.
"""
import ctypes
import math
import resource
import unicodedata

PAD, UNK, BOS, EOS = 0, 1, 2, 3
SPECIALS = ('<pad>', '<unk>', '<s>', '</s>')

# tasks/data.go's streamBase: the PCG stream of a task's splits ("attnzoo\x00").
STREAM_BASE = 0x6174746e7a6f6f00

M64 = (1 << 64) - 1


def maxrss_mb():
    """The process's peak resident set so far, in MiB (ru_maxrss is KiB on Linux)."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def openblas_corename():
    """The kernel the OpenBLAS this process loaded runs (openblas_get_corename,
    e.g. "Haswell", "Cooperlake"), or "" when none is loaded (torch on
    another BLAS). OPENBLAS_CORETYPE in the environment overrides OpenBLAS's
    own choice."""
    try:
        with open('/proc/self/maps') as fh:
            paths = sorted({l.split()[-1] for l in fh if 'openblas' in l and l.split()[-1].startswith('/')})
    except OSError:
        return ''
    for p in paths:
        try:
            f = ctypes.CDLL(p).openblas_get_corename
        except (OSError, AttributeError):
            continue
        f.restype = ctypes.c_char_p
        return f().decode()
    return ''


class PCG:
    """Go's math/rand/v2 PCG (128-bit LCG, DXSM output) and the two Rand
    methods attnzoo's splits use, so a split here is attnzoo's exactly."""

    MUL = (2549297995355413924 << 64) | 4865540595714422341
    INC = (6364136223846793005 << 64) | 1442695040888963407

    def __init__(self, seed1, seed2):
        self.state = ((seed1 & M64) << 64) | (seed2 & M64)

    def uint64(self):
        self.state = (self.state * self.MUL + self.INC) & ((1 << 128) - 1)
        hi, lo = self.state >> 64, self.state & M64
        hi ^= hi >> 32
        hi = (hi * 0xda942042e4dd58b5) & M64
        hi ^= hi >> 48
        return (hi * (lo | 1)) & M64

    def uint64n(self, n):
        if n & (n - 1) == 0:
            return self.uint64() & (n - 1)
        p = self.uint64() * n
        hi, lo = p >> 64, p & M64
        if lo < n:
            thresh = ((1 << 64) - n) % n
            while lo < thresh:
                p = self.uint64() * n
                hi, lo = p >> 64, p & M64
        return hi

    def shuffle(self, xs):
        for i in range(len(xs) - 1, 0, -1):
            j = self.uint64n(i + 1)
            xs[i], xs[j] = xs[j], xs[i]


def tab_lines(path, no_tab):
    """The lines of a tab-separated text file as attnzoo reads them: (line
    number, line) without the line end or a leading byte-order mark, blank
    lines skipped; a line without a tab stops with "path:n: no_tab"."""
    with open(path, encoding='utf-8', newline='\n') as fh:
        for n, line in enumerate(fh, 1):
            line = line.rstrip('\n').rstrip('\r')
            if n == 1:
                line = line.lstrip('\ufeff')
            if not line.strip():
                continue
            if '\t' not in line:
                raise SystemExit('%s:%d: %s' % (path, n, no_tab))
            yield n, line


def go_round(x):
    """Go's math.Round: half away from zero (Python's round is half to even)."""
    return math.floor(x + 0.5) if x >= 0 else -math.floor(-x + 0.5)


def split_groups(groups, dev, test, seed):
    """tasks/tsv.go's and tasks/captioning/splits.go's cut: shuffle with the
    seed's stream, then test, dev and train in that order."""
    n_test, n_dev = go_round(test * len(groups)), go_round(dev * len(groups))
    if n_test + n_dev >= len(groups):
        raise SystemExit('%d groups leave none to train on after dev %g and test %g' % (len(groups), dev, test))
    gs = list(groups)
    PCG(seed, STREAM_BASE).shuffle(gs)
    return gs[n_test + n_dev:], gs[n_test:n_test + n_dev], gs[:n_test]


def _cat(ch):
    return unicodedata.category(ch)[0]


def _word(ch):
    return _cat(ch) in 'LN'  # unicode.IsLetter || unicode.IsNumber


def _joins(r, prev, nxt):
    if r in "'-":
        return (_word(prev) or _cat(prev) == 'M') and _word(nxt)
    if r in '.,':
        return unicodedata.category(prev) == 'Nd' and unicodedata.category(nxt) == 'Nd'  # unicode.IsDigit
    return False


def tokenize(s, lowercase=True):
    """tasks.TSVFormat.Tokenize for word tokens: ’ → ', lowercase, split at
    white space, a run of letters, digits and marks is a word (an apostrophe
    or hyphen between word characters, or '.'/',' between digits, stays
    inside), every other character a token with its marks."""
    s = s.replace('\u2019', "'")
    if lowercase:
        s = s.lower()
    toks = []
    for chunk in s.split():
        i = 0
        while i < len(chunk):
            j = i + 1
            if _word(chunk[i]) or _cat(chunk[i]) == 'M':
                while j < len(chunk) and (_word(chunk[j]) or _cat(chunk[j]) == 'M' or
                                          j + 1 < len(chunk) and _joins(chunk[j], chunk[j - 1], chunk[j + 1])):
                    j += 1
            else:
                while j < len(chunk) and _cat(chunk[j]) == 'M':
                    j += 1
            toks.append(chunk[i:j])
            i = j
    return toks


class Vocab:
    """tasks.BuildVocab: the specials, then the tokens seen at least
    min_count times, most frequent first, ties in code-point order."""

    def __init__(self, sentences, min_count):
        counts = {}
        for s in sentences:
            for t in s:
                counts[t] = counts.get(t, 0) + 1
        for t in SPECIALS:
            counts.pop(t, None)
        toks = sorted((t for t, n in counts.items() if n >= min_count), key=lambda t: (-counts[t], t))
        self.tokens = list(SPECIALS) + toks
        self.ids = {t: i for i, t in enumerate(self.tokens)}

    def __len__(self):
        return len(self.tokens)

    def encode(self, toks):
        return [self.ids.get(t, UNK) for t in toks]


def held_bias(bias, rows):
    """Holds the first `rows` entries of a bias at zero (zero now, zero
    gradient always) and returns how many numbers never change: nn.GRU's and
    nn.LSTM's b_hh overlap b_ih (see reverse.py)."""
    import torch
    with torch.no_grad():
        bias[:rows].zero_()
    keep = torch.ones_like(bias)
    keep[:rows] = 0
    on = {}  # keep on the gradient's device (the model may move to a GPU after this)
    bias.register_hook(lambda g: g * on.setdefault(g.device, keep.to(g.device)))
    return rows


def pad(seqs, prefix=(), suffix=()):
    """Id lists with prefix and suffix added, padded with PAD to the longest: a [B, T] tensor."""
    import torch
    seqs = [list(prefix) + s + list(suffix) for s in seqs]
    T = max(len(s) for s in seqs)
    return torch.tensor([s + [PAD] * (T - len(s)) for s in seqs], dtype=torch.long)


# The layers below are added to a module in a fixed order: it sets the
# order of m.parameters() and of the random draws that initialise them,
# which the scripts' numbers depend on.

def add_concat(m, H, A):
    """Adds the concat scorer, v . tanh(W_q q + W_k k_j + b) with A = the
    attention size: W_q, W_k, b (zero), v (uniform within A^-1/2)."""
    import torch
    import torch.nn as nn
    m.W_q = nn.Linear(H, A, bias=False)
    m.W_k = nn.Linear(H, A, bias=False)
    m.b = nn.Parameter(torch.zeros(A))
    m.v = nn.Parameter(torch.empty(A).uniform_(-A ** -0.5, A ** -0.5))


def add_attentional(m, H):
    """Adds the attentional layer o = tanh(W_s s + W_c c + b_o): W_s, and
    W_c whose bias is b_o."""
    import torch.nn as nn
    m.W_s = nn.Linear(H, H, bias=False)
    m.W_c = nn.Linear(H, H)


def add_bahdanau(m, embed, H, A):
    """Adds attnzoo's Bahdanau decoder from the bridge on: init (W_init,
    b_init), the concat scorer, the GRU cell fed [E y; c], the attentional
    layer (corpus.py, reverse.py)."""
    import torch.nn as nn
    m.init = nn.Linear(H, H)
    add_concat(m, H, A)
    m.dec = nn.GRUCell(embed + H, H)
    add_attentional(m, H)


def load_bahdanau(m, t, embed, H, V):
    """Copies attnzoo's parameters of add_bahdanau's layers and the
    vocabulary layer into m, from t(name, *shape): a tensor of attnzoo's
    flat values (seq2seq.Model.Params's names). nn.GRUCell's b_hh takes
    zeros in its r and z blocks and b_hn in its n block."""
    import torch
    with torch.no_grad():
        m.init.weight.copy_(t('init.W', H, H))
        m.init.bias.copy_(t('init.b', H))
        m.W_q.weight.copy_(t('attn.W_q', H, H))
        m.W_k.weight.copy_(t('attn.W_k', H, H))
        m.b.copy_(t('attn.b', H))
        m.v.copy_(t('attn.v', H))
        m.dec.weight_ih.copy_(torch.cat([t('dec.W_0', 3 * H, embed), t('dec.W_1', 3 * H, H)], 1))
        m.dec.weight_hh.copy_(t('dec.U', 3 * H, H))
        m.dec.bias_ih.copy_(t('dec.b', 3 * H))
        m.dec.bias_hh.copy_(torch.cat([torch.zeros(2 * H, dtype=m.dec.bias_hh.dtype), t('dec.b_hn', H)]))
        m.W_s.weight.copy_(t('out.W_s', H, H))
        m.W_c.weight.copy_(t('out.W_c', H, H))
        m.W_c.bias.copy_(t('out.b', H))
        m.vocab.weight.copy_(t('vocab.W', V, H))
        m.vocab.bias.copy_(t('vocab.b', V))


def concat_scores(m, K, q):
    """The concat scores of query q [B,H] against keys K = W_k k + b [B,S,A]: [B,S]."""
    import torch
    return torch.tanh(K + m.W_q(q).unsqueeze(1)) @ m.v


def greedy(batch, max_len, step, device='cpu'):
    """attnzoo's Greedy over `batch` rows: from <s>, y = step(y) gives each
    row's next token (step keeps the model's state); at most max_len tokens
    then </s>; stops when every row has ended. The tokens, [B, steps run],
    on device."""
    import torch
    y = torch.full((batch,), BOS, dtype=torch.long, device=device)
    done = torch.zeros(batch, dtype=torch.bool, device=device)
    out = []
    for _ in range(max_len + 1):
        y = step(y)
        out.append(y)
        done |= y == EOS
        if bool(done.all()):
            break
    return torch.stack(out, 1)


def workload_args(ap, batch):
    """The options corpus.py and captioning.py share, with attnzoo's
    defaults (--batch: batch)."""
    ap.add_argument('--steps', type=int, default=30)
    ap.add_argument('--batch', type=int, default=batch)
    ap.add_argument('--embed', type=int, default=256)
    ap.add_argument('--hidden', type=int, default=512)
    ap.add_argument('--min-count', type=int, default=2)
    ap.add_argument('--dev', type=float, default=0.1)
    ap.add_argument('--test', type=float, default=0.1)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--threads', type=int, default=1)
    ap.add_argument('--only', choices=['bench', 'params'], default='bench')


def train_steps(model, steps, seed, batch_loss):
    """The training corpus.py and captioning.py time: Adam (lr 1e-3), then
    `steps` steps, each the loss batch_loss(gen) of a batch it draws with a
    generator seeded with seed, gradients clipped to global norm 5. Returns
    each step's seconds (the draw included) and the last loss."""
    import time
    import torch
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    gen = torch.Generator().manual_seed(seed)
    times, loss = [], float('nan')
    for _ in range(steps):
        t0 = time.perf_counter()
        opt.zero_grad()
        l = batch_loss(gen)
        l.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        opt.step()
        loss = l.item()
        times.append(time.perf_counter() - t0)
    return times, loss


def report(out, steps, times, loss, test, batch, decode):
    """Times the greedy decoding of the test items, batch at a time
    (decode(items) gives their tokens, [B, steps run]), then prints out
    with corpus.py's and captioning.py's figures as one JSON line: train
    seconds a step (median and mean of every step, the first included),
    test decoding seconds and the decoder steps summed over the batches,
    the last loss and the peak RSS."""
    import json
    import statistics
    import sys
    import time
    t0, dsteps = time.perf_counter(), 0
    for i in range(0, len(test), batch):
        dsteps += decode(test[i:i + batch]).shape[1]
    decode_s = time.perf_counter() - t0
    out.update({'steps': steps, 's_step_median': round(statistics.median(times), 4),
                's_step_mean': round(statistics.mean(times), 4), 'train_s': round(sum(times), 2),
                'decode_s': round(decode_s, 2), 'decode_steps': dsteps, 'loss_at_last': round(loss, 4),
                'maxrss_mb': maxrss_mb()})
    print(json.dumps(out))
    sys.stdout.flush()
