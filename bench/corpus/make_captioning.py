#!/usr/bin/python3
"""Captioning data of a real benchmark's shape, for bench-captioning
(bench/README.md).

Writes an .npy array of IMAGES × REGIONS × DIM float32 region features (the
shape of VGG conv5 features of a 224×224 image: a 14×14 grid of 512-d
vectors) and a captions file in the Flickr8k token format, five captions
an image ("IMAGE.jpg#N<TAB>caption"), row i of the array being the i-th
image of the captions file, as attnzoo's features task reads them.

Each image has three object words drawn from a Zipfian vocabulary of
--vocab words; each object lights a few regions (non-negative, sparse
values like a ReLU layer's, plus the object's own direction), and each
caption names the objects among Zipfian filler words, 5–30 words with a
mean near 11 (Flickr8k's). Deterministic for a seed; numpy only. The
array is written in slices through a memory map, so this needs little
memory even at full size (3000 images: 1.2 GB on disk).

    python3 bench/corpus/make_captioning.py --images 3000 --npy features.npy --captions captions.txt
"""
import argparse

import numpy as np


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--images', type=int, default=3000)
    p.add_argument('--regions', type=int, default=196)
    p.add_argument('--dim', type=int, default=512)
    p.add_argument('--vocab', type=int, default=5000)
    p.add_argument('--captions-per-image', type=int, default=5)
    p.add_argument('--seed', type=int, default=1)
    p.add_argument('--npy', required=True)
    p.add_argument('--captions', required=True)
    a = p.parse_args()
    rng = np.random.default_rng(a.seed)
    zipf = 1.0 / np.arange(1, a.vocab + 1)
    zipf /= zipf.sum()
    words = np.array(['w%d' % i for i in range(a.vocab)])
    # each word's direction in feature space (the first 1000 words: the rest never name objects)
    dirs = rng.standard_normal((min(a.vocab, 1000), a.dim)).astype(np.float32)
    arr = np.lib.format.open_memmap(a.npy, mode='w+', dtype='<f4', shape=(a.images, a.regions, a.dim))
    with open(a.captions, 'w') as out:
        for i in range(a.images):
            objs = rng.choice(len(dirs), size=3, replace=False, p=zipf[:len(dirs)] / zipf[:len(dirs)].sum())
            f = np.maximum(rng.standard_normal((a.regions, a.dim)).astype(np.float32) - 1.0, 0)
            for o in objs:
                where = rng.choice(a.regions, size=8, replace=False)
                f[where] += np.maximum(dirs[o], 0)
            arr[i] = f
            for n in range(a.captions_per_image):
                length = int(min(30, max(5, rng.geometric(1.0 / 7.0) + 4)))
                cap = list(words[rng.choice(a.vocab, size=length, p=zipf)])
                for k, o in enumerate(objs[:2 + n % 2]):
                    cap[rng.integers(length)] = words[o]
                out.write('img%05d.jpg#%d\t%s .\n' % (i, n, ' '.join(cap)))
    arr.flush()


if __name__ == '__main__':
    main()
