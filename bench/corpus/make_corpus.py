#!/usr/bin/env python3
"""A corpus of a real benchmark's shape, for bench-corpus (bench/README.md).

Writes a TSV of PAIRS source<TAB>target lines shaped like Multi30k's
German-English training set: Zipfian vocabularies (exponent 1.0) of
SRC_VOCAB and TGT_VOCAB words, lengths 3..44 drawn around a mean of ~12
(a shifted geometric law truncated at 44), the target's length the
source's ± 20%, its words a noisy mapping of the source's (so there is
something to learn and attend to). Deterministic for a seed; standard
library only.

    python3 bench/corpus/make_corpus.py --pairs 29000 > corpus.tsv
"""
import argparse
import bisect
import itertools
import random
import sys


def zipf_cdf(n, s=1.0):
    w = [1.0 / (r ** s) for r in range(1, n + 1)]
    return list(itertools.accumulate(w)), sum(w)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--pairs", type=int, default=29000)
    p.add_argument("--src-vocab", type=int, default=7500)
    p.add_argument("--tgt-vocab", type=int, default=5800)
    p.add_argument("--min-len", type=int, default=3)
    p.add_argument("--max-len", type=int, default=44)
    p.add_argument("--mean-len", type=float, default=12.0)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    rng = random.Random(a.seed)
    scdf, stot = zipf_cdf(a.src_vocab)
    tcdf, ttot = zipf_cdf(a.tgt_vocab)
    # each source word's usual translation, by rank (frequent to frequent)
    trans = [min(a.tgt_vocab - 1, int(r * a.tgt_vocab / a.src_vocab)) for r in range(a.src_vocab)]
    q = 1.0 / (a.mean_len - a.min_len + 1)  # geometric's success probability
    out = sys.stdout
    for _ in range(a.pairs):
        n = a.max_len + 1
        while n > a.max_len:
            n = a.min_len
            while rng.random() > q:
                n += 1
        src = [bisect.bisect_left(scdf, rng.random() * stot) for _ in range(n)]
        tgt = []
        for r in src:
            if rng.random() < 0.8:
                tgt.append(trans[r])
            else:
                tgt.append(bisect.bisect_left(tcdf, rng.random() * ttot))
            if rng.random() < 0.1:
                tgt.append(bisect.bisect_left(tcdf, rng.random() * ttot))
        if len(tgt) > a.max_len:
            tgt = tgt[: a.max_len]
        out.write(" ".join("s%d" % min(r, a.src_vocab - 1) for r in src))
        out.write("\t")
        out.write(" ".join("t%d" % min(r, a.tgt_vocab - 1) for r in tgt))
        out.write("\n")


if __name__ == "__main__":
    main()
