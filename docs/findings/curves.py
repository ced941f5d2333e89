#!/usr/bin/env python3
"""Mean dev learning curves per sweep point of an attnzoo results folder.

usage: python3 docs/findings/curves.py results/EXPERIMENT > curves.csv

Reads runs/*/metrics.jsonl (one line per dev evaluation) and runs/*/final.json
(the run's sweep point), and writes one row per sweep point and evaluation
step: the seeds evaluated at that step and the mean of each dev metric over
them (dev_loss and dev_aer too, where the runs selected on them). A run
stopped early (patience) has no rows past its stop, so later
steps average fewer seeds: the seeds column says how many.
"""
import csv
import glob
import json
import os
import sys


def main(folder):
    curves = {}  # point -> step -> list of dicts
    order = []
    for run in sorted(glob.glob(os.path.join(folder, "runs", "*"))):
        try:
            with open(os.path.join(run, "final.json")) as f:
                final = json.load(f)
        except OSError:
            continue  # not finished
        point = " ".join("%s=%s" % (k.split(".")[-1], v) for k, v in sorted(final.get("point", {}).items()))
        if point not in curves:
            curves[point] = {}
            order.append(point)
        with open(os.path.join(run, "metrics.jsonl")) as f:
            for line in f:
                d = json.loads(line)
                curves[point].setdefault(d["step"], []).append(d)
    keys = ["dev_bleu", "dev_exact_match", "dev_token_acc"]
    # dev_loss and dev_aer: only where [train] select named them
    keys += [k for k in ("dev_loss", "dev_aer") if any(k in r for c in curves.values() for rows in c.values() for r in rows)]
    w = csv.writer(sys.stdout)
    w.writerow(["point", "step", "seeds"] + keys)
    for point in order:
        for step in sorted(curves[point]):
            rows = curves[point][step]
            means = []
            for k in keys:
                xs = [r[k] for r in rows if k in r]
                means.append("%.4f" % (sum(xs) / len(xs)) if xs else "")
            w.writerow([point, step, len(rows)] + means)


if __name__ == "__main__":
    main(sys.argv[1])
