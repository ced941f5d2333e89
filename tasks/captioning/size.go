package captioning

import (
	"bufio"
	"os"

	"github.com/attnzoo/attnzoo/tasks"
)

// Size of the shapes task: images of 3×size×size, captions of at most
// 4 + 9 words an object ("there is", "a small red circle", "to the left
// of", "and"), a vocabulary of a few dozen words.
func (t *shapesTask) Size() tasks.Size {
	maxCap := 4 + 9*t.maxObj
	return tasks.Size{Train: t.train, Dev: t.dev, Test: t.test, MaxTgt: maxCap,
		MeanTgt: float64(maxCap+4) / 2, TgtVocab: 40, C: 3, H: t.size, W: t.size, Captions: t.perImage}
}

var _ tasks.Sizer = (*shapesTask)(nil)

// Size of the features task, read before Load: the array's header (N
// images of S regions × D values) and the captions file, tokenized as Load
// tokenizes it, for the longest and mean caption (max_len applied) and the
// vocabulary (min_count, max_vocab) over every caption: an upper bound on
// the training captions'. The splits are the dev and test fractions of the
// images (or all of them as train when lists are given). A file that cannot
// be read gives an empty Size (Load reports it).
func (t *featuresTask) Size() tasks.Size {
	c, err := readCorpus(t.captions, t.format)
	if err != nil {
		return tasks.Size{}
	}
	f, err := os.Open(t.npy)
	if err != nil {
		return tasks.Size{}
	}
	defer f.Close()
	h, err := readNPYHeader(bufio.NewReader(f))
	if err != nil || len(h.shape) != 3 {
		return tasks.Size{}
	}
	s := tasks.Size{S: h.shape[1], D: h.shape[2]}
	counts := map[string]int{}
	caps, toks := 0, 0
	for _, e := range c.entries {
		for _, cp := range e.caps {
			if t.maxLen > 0 && len(cp) > t.maxLen {
				continue
			}
			caps, toks = caps+1, toks+len(cp)
			s.MaxTgt = max(s.MaxTgt, len(cp))
			for _, w := range cp {
				counts[w]++
			}
		}
	}
	for _, n := range counts {
		if n >= t.minCount {
			s.TgtVocab++
		}
	}
	if t.maxVoc > 0 {
		s.TgtVocab = min(s.TgtVocab, t.maxVoc)
	}
	n := len(c.entries)
	if caps > 0 {
		s.MeanTgt = float64(toks) / float64(caps)
		s.Captions = (caps + n - 1) / max(n, 1)
	}
	s.Dev, s.Test = int(t.splits.dev*float64(n)), int(t.splits.test*float64(n))
	s.Train = n - s.Dev - s.Test
	return s
}

var _ tasks.Sizer = (*featuresTask)(nil)
