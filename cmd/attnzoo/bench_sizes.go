package main

import (
	"flag"
	"fmt"
	"math/rand/v2"

	"github.com/attnzoo/attnzoo/seq2seq"
)

// benchSizes size the bench workload: the speed anchor's model
// (seq2seq.AnchorConfig: GRU encoder, Bahdanau decoder, concat scorer,
// embedding 64, float32) with hidden = attention size H, vocabulary V
// (source and target, ids 0–3 reserved), sources of S tokens and their
// reversals, batches of B. bench/pytorch/reverse.py takes the same flags.
type benchSizes struct {
	hidden, batch, srcLen, vocab int
}

// anchorSizes are the speed anchor's sizes, the flags' defaults.
func anchorSizes() benchSizes {
	c := seq2seq.AnchorConfig()
	b := seq2seq.AnchorBatch(rand.New(rand.NewPCG(0, 0)))
	return benchSizes{hidden: c.Hidden, batch: b.Size(), srcLen: c.MaxSrcLen, vocab: c.SrcVocab}
}

func (s *benchSizes) flags(fs *flag.FlagSet) {
	d := anchorSizes()
	fs.IntVar(&s.hidden, "hidden", d.hidden, "hidden size H, also the attention size")
	fs.IntVar(&s.batch, "batch", d.batch, "batch size B")
	fs.IntVar(&s.srcLen, "src-len", d.srcLen, "source length S (targets: S + 1 with </s>)")
	fs.IntVar(&s.vocab, "vocab", d.vocab, fmt.Sprintf("vocabulary V, source and target (ids 0–%d reserved)", seq2seq.EosID))
}

// check names the first flag out of range.
func (s benchSizes) check() error {
	for _, f := range []struct {
		name   string
		v, min int
		why    string
	}{
		{"--hidden", s.hidden, 1, ""},
		{"--batch", s.batch, 1, ""},
		{"--src-len", s.srcLen, 1, ""},
		{"--vocab", s.vocab, seq2seq.EosID + 2, fmt.Sprintf(" (ids 0–%d are reserved, and the sources need one more)", seq2seq.EosID)},
	} {
		if f.v < f.min {
			return fmt.Errorf("%s must be ≥ %d%s, got %d", f.name, f.min, f.why, f.v)
		}
	}
	return nil
}

// config is the model: the anchor's, at these sizes.
func (s benchSizes) config() seq2seq.Config {
	c := seq2seq.AnchorConfig()
	c.Hidden, c.Attention = s.hidden, s.hidden
	c.SrcVocab, c.TgtVocab = s.vocab, s.vocab
	c.MaxSrcLen = s.srcLen
	return c
}

// draw is one batch: B sources of S ids drawn uniformly after the reserved
// ones, and their reversals. At the anchor's sizes it draws exactly what
// seq2seq.AnchorBatch draws from the same generator.
func (s benchSizes) draw(rng *rand.Rand) *seq2seq.Batch {
	first := seq2seq.EosID + 1
	src := make([][]int, s.batch)
	tgt := make([][]int, s.batch)
	for i := range src {
		src[i] = make([]int, s.srcLen)
		tgt[i] = make([]int, s.srcLen)
		for j := range src[i] {
			src[i][j] = first + rng.IntN(s.vocab-first)
		}
		for j := range tgt[i] {
			tgt[i][j] = src[i][s.srcLen-1-j]
		}
	}
	b, _ := seq2seq.NewBatch(src, tgt)
	return b
}

func (s benchSizes) String() string {
	return fmt.Sprintf("H=%d, B=%d, S=%d, V=%d", s.hidden, s.batch, s.srcLen, s.vocab)
}
