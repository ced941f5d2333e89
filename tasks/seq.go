package tasks

import (
	"context"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/attnzoo/attnzoo/metrics"
)

// seqOptions are the keys shared by the sequence tasks copy, reverse and sort:
//
//	min_len      3      shortest source
//	max_len      10     longest source in train and dev
//	test_max_len max_len  longest source in test, which draws lengths in
//	                    [test_min_len, test_max_len] to probe length generalisation
//	test_min_len min_len  shortest source in test (test_max_len > max_len and
//	                    test_min_len = max_len+1: a test of unseen lengths only)
//	vocab        10     number of distinct tokens, "0", "1", ... "vocab-1"
//	train        10000  split sizes
//	dev          500
//	test         500
type seqOptions struct {
	minLen, maxLen, testMaxLen, vocab int
	testMinLen                        int
	n                                 sizes
}

func readSeqOptions(r *optionReader) seqOptions {
	o := seqOptions{
		minLen: r.Int("min_len", 3),
		maxLen: r.Int("max_len", 10),
		vocab:  r.Int("vocab", 10),
		n:      readSizes(r, 10000, 500, 500),
	}
	o.testMaxLen = r.Int("test_max_len", o.maxLen)
	o.testMinLen = r.Int("test_min_len", o.minLen)
	r.Check(o.minLen >= 1, "min_len: must be >= 1, got %d", o.minLen)
	r.Check(o.minLen <= o.maxLen, "min_len %d > max_len %d", o.minLen, o.maxLen)
	r.Check(o.minLen <= o.testMaxLen || o.testMaxLen == o.maxLen, "min_len %d > test_max_len %d", o.minLen, o.testMaxLen)
	r.Check(o.testMinLen == o.minLen || o.minLen <= o.testMinLen && o.testMinLen <= o.testMaxLen, "test_min_len %d: must be in [min_len %d, test_max_len %d]", o.testMinLen, o.minLen, o.testMaxLen)
	r.Check(o.vocab >= 2, "vocab: must be >= 2, got %d", o.vocab)
	return o
}

// space is the number of distinct sources any split can draw.
func (o seqOptions) space() float64 {
	var s float64
	for n := o.minLen; n <= max(o.maxLen, o.testMaxLen); n++ {
		s += math.Pow(float64(o.vocab), float64(n))
	}
	return s
}

// seqTask is a task on random token sequences: source lengths are uniform
// in [min_len, max_len] (test: [min_len, test_max_len]) and tokens uniform
// over the vocabulary. target maps a source, as token numbers, to its target
// and gold links.
type seqTask struct {
	name   string
	o      seqOptions
	target func(src []int) ([]int, []metrics.Link)
}

func seqFactory(name string, target func([]int) ([]int, []metrics.Link)) Factory {
	return func(opts Options) (Task, error) {
		r := readOptions(name, opts)
		o := readSeqOptions(r)
		if err := r.Err(); err != nil {
			return nil, err
		}
		return &seqTask{name: name, o: o, target: target}, nil
	}
}

func (t *seqTask) Name() string { return t.name }

// Load draws the splits. Dev and test sources never occur in train (nor
// twice in dev and test) when there are at least twice as many possible
// sources as examples wanted; otherwise repeats are allowed.
func (t *seqTask) Load(seed int64) (*Data, error) { return t.LoadContext(context.Background(), seed) }

// LoadContext is Load, stopping early when ctx is done.
func (t *seqTask) LoadContext(ctx context.Context, seed int64) (*Data, error) {
	return generate(ctx, t.name, seed, t.o.n, t.o.space() >= 2*t.o.n.total(), t.draw)
}

func (t *seqTask) draw(r *rand.Rand, test bool) Example {
	lo, hi := t.o.minLen, t.o.maxLen
	if test {
		lo, hi = t.o.testMinLen, t.o.testMaxLen
	}
	src := make([]int, lo+r.IntN(hi-lo+1))
	for i := range src {
		src[i] = r.IntN(t.o.vocab)
	}
	tgt, links := t.target(src)
	return Example{Src: symbols(src), Tgt: symbols(tgt), Sure: links}
}

// Tokenize splits s at white space.
func (t *seqTask) Tokenize(s string) []string { return strings.Fields(s) }

// symbols writes token numbers as the task's tokens: decimal numbers.
func symbols(xs []int) []string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return s
}

func (t *seqTask) Size() Size {
	hi := max(t.o.maxLen, t.o.testMaxLen)
	mean := float64(t.o.minLen+hi) / 2
	return Size{Train: t.o.n.train, Dev: t.o.n.dev, Test: t.o.n.test, MaxSrc: hi, MaxTgt: hi,
		MeanSrc: mean, MeanTgt: mean, SrcVocab: t.o.vocab, TgtVocab: t.o.vocab}
}
