#!/usr/bin/env python3
"""Writes tokens.jsonl, expected.jsonl and cli.txt from the cases here by
running sacreBLEU itself (see README.md for the version and the command).
attnzoo's tests read these files; nothing in the tests runs Python."""

import glob
import json
import os
import subprocess
import sys

import sacrebleu
from sacrebleu.metrics import BLEU, CHRF

TOKENIZERS = ["13a", "none", "intl", "char"]
HERE = os.path.dirname(os.path.abspath(__file__))


def read(path):
    # As sacreBLEU's CLI reads a file: UTF-8, lines split at "\n" only.
    with open(path, encoding="utf-8", newline="\n") as f:
        return [line[:-1] if line.endswith("\n") else line for line in f]


def cli(args):
    out = subprocess.run([sys.executable, "-m", "sacrebleu", *args, "-f", "text", "-w", "2"],
                         check=True, capture_output=True, text=True, cwd=HERE).stdout
    return out.strip("\n")


def main():
    tokens, expected, cli_lines = [], [], []
    for hyp_path in sorted(glob.glob(os.path.join(HERE, "*.hyp"))):
        case = os.path.basename(hyp_path)[:-4]
        ref_names = sorted(os.path.basename(p) for p in glob.glob(os.path.join(HERE, case + ".ref*")))
        # The CLI strips trailing whitespace from every line it reads.
        hyps = [line.rstrip() for line in read(hyp_path)]
        refs = [[line.rstrip() for line in read(os.path.join(HERE, n))] for n in ref_names]
        raw = read(hyp_path) + [line for n in ref_names for line in read(os.path.join(HERE, n))]
        for tok in TOKENIZERS:
            bleu = BLEU(tokenize=tok)
            for line in raw:
                # What BLEU counts: _preprocess_segment, then str.split.
                tokens.append({"tok": tok, "in": line, "out": bleu._preprocess_segment(line).split()})
            s = bleu.corpus_score(hyps, refs)
            expected.append({"case": case, "refs": ref_names, "metric": "bleu", "tokenize": tok,
                             "score": s.score, "counts": s.counts, "totals": s.totals,
                             "hyp_len": s.sys_len, "ref_len": s.ref_len,
                             "signature": str(bleu.get_signature())})
            line = cli([*ref_names, "-i", case + ".hyp", "-m", "bleu", "-tok", tok])
            cli_lines.append(f"{case}\tbleu\t{tok}\t{line}")
        for word_order in (0, 2):
            chrf = CHRF(word_order=word_order)
            s = chrf.corpus_score(hyps, refs)
            expected.append({"case": case, "refs": ref_names, "metric": "chrf", "word_order": word_order,
                             "score": s.score, "signature": str(chrf.get_signature())})
            line = cli([*ref_names, "-i", case + ".hyp", "-m", "chrf", "--chrf-word-order", str(word_order)])
            cli_lines.append(f"{case}\tchrf{word_order}\t-\t{line}")

    def write(name, rows):
        with open(os.path.join(HERE, name), "w", encoding="utf-8", newline="\n") as f:
            for r in rows:
                f.write((json.dumps(r, ensure_ascii=False) if isinstance(r, dict) else r) + "\n")

    write("tokens.jsonl", tokens)
    write("expected.jsonl", expected)
    write("cli.txt", cli_lines)
    print(f"sacreBLEU {sacrebleu.__version__}: {len(tokens)} tokenized lines, {len(expected)} scores")


if __name__ == "__main__":
    main()
