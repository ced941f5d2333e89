package tasks

import (
	"fmt"
	"math"

	"github.com/attnzoo/attnzoo/metrics"
)

// Pairs is one split as a trainer reads it, however the task holds it:
// Examples (the generated tasks) or token ids (Packed, the tsv task).
type Pairs interface {
	Len() int
	// IDs returns pair i's source and target as ids in the Data's
	// vocabularies, in new slices (no <s> or </s>).
	IDs(i int) (src, tgt []int)
	// Lens returns pair i's source and target lengths in tokens.
	Lens(i int) (src, tgt int)
	// Example returns pair i with its tokens as the text has them (those
	// out of the vocabularies too) and its gold links.
	Example(i int) Example
	// Aligned reports whether every pair carries gold links.
	Aligned() bool
}

// Split returns a split by name, "train", "dev" or "test", however it is
// held.
func (d *Data) Split(name string) Pairs {
	if d.Text != nil {
		return d.Text.pairs(name)
	}
	exs := PickSplit(name, d.Train, d.Dev, d.Test)
	aligned := true
	for _, ex := range exs {
		aligned = aligned && ex.Sure != nil
	}
	return examplePairs{exs, d.SrcVocab, d.TgtVocab, aligned}
}

// Examples returns a split's pairs as Examples: the split itself for the
// generated tasks, a copy built from the ids for Packed text (tokens are
// shared with its table of tokens, so the copy costs a slice a side a pair).
func (d *Data) Examples(name string) []Example {
	if d.Text == nil {
		return PickSplit(name, d.Train, d.Dev, d.Test)
	}
	p := d.Text.pairs(name)
	exs := make([]Example, p.Len())
	for i := range exs {
		exs[i] = p.Example(i)
	}
	return exs
}

// PickSplit returns train, dev or test by name; any other name is train.
func PickSplit[T any](name string, train, dev, test T) T {
	switch name {
	case "dev":
		return dev
	case "test":
		return test
	}
	return train
}

// examplePairs is a split of Examples, encoded as it is read.
type examplePairs struct {
	exs     []Example
	sv, tv  *Vocab
	aligned bool
}

func (p examplePairs) Len() int { return len(p.exs) }
func (p examplePairs) IDs(i int) ([]int, []int) {
	return p.sv.Encode(p.exs[i].Src), p.tv.Encode(p.exs[i].Tgt)
}
func (p examplePairs) Lens(i int) (int, int) { return len(p.exs[i].Src), len(p.exs[i].Tgt) }
func (p examplePairs) Example(i int) Example { return p.exs[i] }
func (p examplePairs) Aligned() bool         { return p.aligned }

// Packed is parallel text held once, as token ids: for each side, every
// token of every pair end to end as a type id (an index into the side's
// table of distinct tokens) in chunked uint32 arrays, and each pair's end
// offset. The splits are lists of pair numbers. A token costs 4 bytes and
// a pair 12 (two offsets and its place in a split), plus the table of
// distinct tokens; nothing is held as a Go string per token.
type Packed struct {
	side  [2]packedSide // source, target
	split [3][]uint32   // train, dev, test: pair numbers
	// the test split's gold links, by test index; nil without
	sure, possible [][]metrics.Link
}

// packedSide is one side of a Packed text.
type packedSide struct {
	types []string // type id → token, in order of first appearance
	vocab []int32  // type id → id in the Data's vocabulary (set once it is built)
	ids   u32s     // type ids, every pair's end to end
	ends  u32s     // ends.at(p) is where pair p's tokens end; pair p starts at ends.at(p-1) (0 for p = 0)
}

func (s *packedSide) span(p int) (lo, hi int) {
	if p > 0 {
		lo = int(s.ends.at(p - 1))
	}
	return lo, int(s.ends.at(p))
}

func (s *packedSide) ids32(p int) []int {
	lo, hi := s.span(p)
	out := make([]int, hi-lo)
	for i := range out {
		out[i] = int(s.vocab[s.ids.at(lo+i)])
	}
	return out
}

func (s *packedSide) tokens(p int) []string {
	lo, hi := s.span(p)
	out := make([]string, hi-lo)
	for i := range out {
		out[i] = s.types[s.ids.at(lo+i)]
	}
	return out
}

// Pairs returns the number of pairs held, over the three splits.
func (t *Packed) Pairs() int { return t.side[0].ends.n }

// Tokens returns the number of tokens held on each side.
func (t *Packed) Tokens() (src, tgt int) { return t.side[0].ids.n, t.side[1].ids.n }

func (t *Packed) pairs(name string) packedPairs {
	i := PickSplit(name, 0, 1, 2)
	return packedPairs{t: t, pairs: t.split[i], test: i == 2}
}

// packedPairs is one split of a Packed text.
type packedPairs struct {
	t     *Packed
	pairs []uint32
	test  bool
}

func (p packedPairs) Len() int { return len(p.pairs) }
func (p packedPairs) IDs(i int) ([]int, []int) {
	n := int(p.pairs[i])
	return p.t.side[0].ids32(n), p.t.side[1].ids32(n)
}
func (p packedPairs) Lens(i int) (int, int) {
	n := int(p.pairs[i])
	a, b := p.t.side[0].span(n)
	c, d := p.t.side[1].span(n)
	return b - a, d - c
}
func (p packedPairs) Example(i int) Example {
	n := int(p.pairs[i])
	ex := Example{Src: p.t.side[0].tokens(n), Tgt: p.t.side[1].tokens(n)}
	if p.test && p.t.sure != nil {
		ex.Sure, ex.Possible = p.t.sure[i], p.t.possible[i]
	}
	return ex
}
func (p packedPairs) Aligned() bool { return p.test && p.t.sure != nil && len(p.pairs) > 0 }

// chunked is an append-only array in chunks of chunkLen values, so that
// it grows without copying: its memory is what it holds, plus at most one
// chunk.
type chunked[T any] struct {
	chunks [][]T
	n      int
}

// u32s holds ids and offsets.
type u32s = chunked[uint32]

const chunkShift = 16 // 64 Ki values a chunk (256 KiB of uint32)

const chunkLen = 1 << chunkShift

func (a *chunked[T]) push(v T) {
	if a.n&(chunkLen-1) == 0 {
		a.chunks = append(a.chunks, make([]T, 0, chunkLen))
	}
	c := &a.chunks[len(a.chunks)-1]
	*c = append(*c, v)
	a.n++
}

func (a *chunked[T]) at(i int) T { return a.chunks[i>>chunkShift][i&(chunkLen-1)] }

// push adds a pair (type ids) to the text, in no split yet.
func (t *Packed) push(src, tgt []uint32) error {
	for i, ids := range [2][]uint32{src, tgt} {
		s := &t.side[i]
		if s.ids.n+len(ids) > math.MaxUint32 {
			return fmt.Errorf("tasks: tsv: more than 2^32 tokens on the %s side", [2]string{"source", "target"}[i])
		}
		for _, id := range ids {
			s.ids.push(id)
		}
		s.ends.push(uint32(s.ids.n))
	}
	return nil
}
