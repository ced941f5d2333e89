package tasks

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/attnzoo/attnzoo/metrics"
	"github.com/attnzoo/attnzoo/tasks/subword"
)

// Example is one source/target pair.
type Example struct {
	Src, Tgt []string
	Sure     []metrics.Link // gold sure links; nil when the task has no gold alignment
	Possible []metrics.Link // gold possible links, a superset of Sure; nil means the same as Sure
}

// Data is a task's splits and vocabularies. The generated tasks hold their
// splits as Examples; a task that reads a corpus (tsv) holds them as token
// ids in Text, leaving Train, Dev and Test nil. Split and Examples read
// either.
type Data struct {
	Train, Dev, Test   []Example
	SrcVocab, TgtVocab *Vocab  // built from the training split only
	Aligned            bool    // true when every example carries gold alignments
	Text               *Packed // the splits as token ids, or nil
	// How each side's tokens mark words (zero: every token a word). For
	// subword pieces, runs score BLEU on the words they join into and map
	// attention and alignments to words (subword.WordAttention).
	SrcScheme, TgtScheme subword.Scheme
}

// sizes are the number of examples in each split.
type sizes struct{ train, dev, test int }

func (n sizes) total() float64 { return float64(n.train) + float64(n.dev) + float64(n.test) }

// readSizes reads the keys train, dev and test.
func readSizes(r *optionReader, train, dev, test int) sizes {
	n := sizes{train: r.Int("train", train), dev: r.Int("dev", dev), test: r.Int("test", test)}
	r.Check(n.train >= 1, "train: must be >= 1, got %d", n.train)
	r.Check(n.dev >= 0, "dev: must be >= 0, got %d", n.dev)
	r.Check(n.test >= 0, "test: must be >= 0, got %d", n.test)
	return n
}

// streamBase is the PCG stream of the training split; dev and test use the
// next two, so each split has its own stream for a given seed.
const streamBase = 0x6174746e7a6f6f00 // "attnzoo\x00"

func splitRand(seed int64, split int) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), streamBase+uint64(split)))
}

// drawFunc draws one example; test is true for the test split, which may
// be drawn from a different distribution (longer inputs, say).
type drawFunc func(r *rand.Rand, test bool) Example

// maxRedraws bounds the draws spent looking for one held-out example unlike
// every earlier one, so generation always ends.
const maxRedraws = 10000

// generate draws the three splits, each from its own stream. With dedupe,
// dev and test hold no source that occurs in train or earlier in dev or
// test: a source already seen is drawn again. Tasks dedupe only when the
// space of sources is at least twice the number of examples wanted.
func generate(ctx context.Context, task string, seed int64, n sizes, dedupe bool, draw drawFunc) (*Data, error) {
	d := &Data{Train: make([]Example, n.train)}
	seen := make(map[string]bool)
	r := splitRand(seed, 0)
	for i := range d.Train {
		if i%checkEvery == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		d.Train[i] = draw(r, false)
		if dedupe {
			seen[sourceKey(d.Train[i].Src)] = true
		}
	}
	held := func(split string, stream, size int, test bool) ([]Example, error) {
		r := splitRand(seed, stream)
		exs := make([]Example, size)
		for i := range exs {
			if i%checkEvery == 0 && ctx.Err() != nil {
				return nil, ctx.Err()
			}
			for tries := 0; ; tries++ {
				if tries == maxRedraws {
					return nil, fmt.Errorf("tasks: %s: could not draw %d %s examples unlike the training ones (got %d); make the task larger or the splits smaller", task, size, split, i)
				}
				exs[i] = draw(r, test)
				if !dedupe {
					break
				}
				if k := sourceKey(exs[i].Src); !seen[k] {
					seen[k] = true
					break
				}
			}
		}
		return exs, nil
	}
	var err error
	if d.Dev, err = held("dev", 1, n.dev, false); err != nil {
		return nil, err
	}
	if d.Test, err = held("test", 2, n.test, true); err != nil {
		return nil, err
	}
	return d, finish(ctx, d, 1, 0)
}

func sourceKey(src []string) string { return strings.Join(src, "\x1f") }

// finish builds the vocabularies from Train and sets Aligned.
func finish(ctx context.Context, d *Data, minCount, maxSize int) error {
	srcs := make([][]string, len(d.Train))
	tgts := make([][]string, len(d.Train))
	for i, ex := range d.Train {
		srcs[i], tgts[i] = ex.Src, ex.Tgt
	}
	var err error
	if d.SrcVocab, err = BuildVocabContext(ctx, srcs, minCount, maxSize); err != nil {
		return err
	}
	if d.TgtVocab, err = BuildVocabContext(ctx, tgts, minCount, maxSize); err != nil {
		return err
	}
	d.Aligned = true
	for _, split := range [][]Example{d.Train, d.Dev, d.Test} {
		for _, ex := range split {
			if ex.Sure == nil {
				d.Aligned = false
			}
		}
	}
	return nil
}

// sortLinks sorts links by target position, then source position.
func sortLinks(links []metrics.Link) {
	slices.SortFunc(links, func(a, b metrics.Link) int {
		if c := cmp.Compare(a.Tgt, b.Tgt); c != 0 {
			return c
		}
		return cmp.Compare(a.Src, b.Src)
	})
}
