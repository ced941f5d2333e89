#!/usr/bin/env python3
"""Writes corpus.txt, the text the BPE tests learn codes on: 700 lines of
pseudo-words drawn with Zipfian frequencies from syllables (some accented,
Greek and CJK), with a few lines of odd spacing. Deterministic (seed 24)."""
import random

rng = random.Random(24)
onsets = ["b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z",
          "st", "tr", "pl", "ch", "sch", "ß", "ñ", "κ", "λ", ""]
vowels = ["a", "e", "i", "o", "u", "é", "ü", "ä", "ö", "α", "ο", "ie", "au"]
codas = ["", "", "n", "r", "s", "t", "ng", "ck", "l", "x"]
words = set()
while len(words) < 400:
    n = rng.choice([1, 1, 2, 2, 2, 3, 3, 4])
    words.add("".join(rng.choice(onsets) + rng.choice(vowels) + rng.choice(codas) for _ in range(n)))
words = sorted(words)
rng.shuffle(words)
words += ["東京", "大学", "の", "学生", "-", ",", ".", "'s", "x"]
weights = [1.0 / (r + 1) for r in range(len(words))]
lines = []
for _ in range(700):
    n = rng.randint(3, 12)
    lines.append(" ".join(rng.choices(words, weights, k=n)))
lines[10] = "  " + lines[10] + "   "          # leading and trailing spaces
lines[20] = lines[20].replace(" ", "  ", 2)  # runs of spaces
lines[30] = lines[30] + "\r"                 # CRLF line end
lines[40] = ""                               # empty line
lines[50] = "a\tb tab\tinside words"         # tabs stay inside words
with open("corpus.txt", "w", encoding="utf-8", newline="") as f:
    f.write("\n".join(lines) + "\n")
