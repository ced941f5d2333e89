"""What the bench scripts share: the process's figures (peak RSS, the
OpenBLAS kernel), attnzoo's split of a corpus (Go's math/rand/v2 PCG and
Shuffle, bit for bit) and its vocabulary and tokenizer (tasks/tsv.go,
tasks/vocab.go).
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
    bias.register_hook(lambda g: g * keep)
    return rows


def pad(seqs, prefix=(), suffix=()):
    """Id lists with prefix and suffix added, padded with PAD to the longest: a [B, T] tensor."""
    import torch
    seqs = [list(prefix) + s + list(suffix) for s in seqs]
    T = max(len(s) for s in seqs)
    return torch.tensor([s + [PAD] * (T - len(s)) for s in seqs], dtype=torch.long)
