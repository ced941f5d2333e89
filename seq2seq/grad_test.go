package seq2seq

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/attnzoo/attnzoo/internal/gradcheck"
	"github.com/attnzoo/attnzoo/internal/gx"
	"github.com/attnzoo/attnzoo/scorers"
	"github.com/attnzoo/attnzoo/source"
)

// gradCase checks every parameter's gradient through the whole
// encoder–decoder (embeddings, encoder, attention, decoder, output layer,
// cross-entropy) against central finite differences, in float64.
func gradCase(t *testing.T, cfg Config, B, lo, hi, sample int, step float64, floor func([]gradcheck.Entry) (gradcheck.Entry, float64)) {
	t.Helper()
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	src, tgt := reversal(rng, B, lo, hi)
	for i := range tgt { // a target of its own length, so S ≠ T
		tgt[i] = append(tgt[i], 4+i%10)
	}
	if cfg.SrcVocab > 14 { // use the whole vocabulary
		for _, s := range append(src, tgt...) {
			for j := range s {
				s[j] = 4 + rng.IntN(cfg.SrcVocab-4)
			}
		}
	}
	b, err := NewBatch(src, tgt)
	if err != nil {
		t.Fatal(err)
	}
	es, err := gradcheck.Check(trainCost(m, b), m.Params(), gradcheck.Options{Sample: sample, Rand: rng, Step: step})
	if err != nil {
		t.Fatal(err)
	}
	e, r := floor(es)
	if r > 1e-6 {
		t.Errorf("worst relative error %.3g at %v", r, e)
	}
	t.Logf("%d entries of %d tensors, worst relative error %.2g", len(es), len(m.Params()), r)
}

// trainCost builds m's training graph for b with its inputs set (the
// attention penalty too, where the model has one) and returns its cost.
func trainCost(m *Model, b *Batch) func(*gx.Graph) *gx.Node {
	return func(g *gx.Graph) *gx.Node {
		tg := m.trainGraphOn(g, b.Size(), b.SrcLen(), b.TgtLen())
		if g.Err() != nil {
			return nil
		}
		g.Fail(tg.enc.set(b))
		g.Fail(tg.setTargets(b, m.Cfg.LabelSmoothing))
		g.Fail(tg.penalty.set(b, m.Cfg.Lambda))
		return tg.cost
	}
}

func tiny(cell, enc, dec, scorer string) Config {
	return Config{Cell: cell, Encoder: enc, Decoder: dec, Scorer: scorer, Init: "final",
		SrcVocab: 14, TgtVocab: 14, Embed: 3, Hidden: 4, Attention: 3, MaxSrcLen: 6, Dtype: "float64", Seed: 5}
}

// TestModelGradients: every scorer × both decoders (gru, birnn), every
// cell and every token encoder once, every entry of every parameter at a toy size.
func TestModelGradients(t *testing.T) {
	var cases []Config
	for _, s := range scorers.Names() {
		for _, d := range DecoderNames() {
			cases = append(cases, tiny("gru", "birnn", d, s))
		}
	}
	cases = append(cases, tiny("lstm", "rnn", "luong", "general"), tiny("rnn", "birnn", "bahdanau", "dot"))
	for _, e := range EncodersReading(source.Tokens) { // every token encoder, test-bag (plugin_test.go) too
		cases = append(cases, tiny("lstm", e, "bahdanau", "concat"))
	}
	mean := tiny("lstm", "birnn", "bahdanau", "concat")
	mean.Init = "mean"
	zero := tiny("gru", "birnn", "luong", "scaled-dot")
	zero.Init = "zero"
	smoothed := tiny("gru", "birnn", "bahdanau", "general")
	smoothed.LabelSmoothing = 0.1
	cases = append(cases, mean, zero, smoothed)
	// [model] layers: the gru's fused sequence (birnn and rnn) and the
	// lstm's steps through every layer, Bahdanau's and Luong's stacks,
	// every init; tie_embeddings: the one table's gradient is both uses'
	// sum, checked entry by entry against the finite differences
	for _, c := range []Config{tiny("gru", "birnn", "bahdanau", "concat"), tiny("lstm", "rnn", "luong", "general"),
		tiny("gru", "rnn", "luong", "dot"), tiny("lstm", "birnn", "bahdanau", "dot"), mean, zero} {
		c.Layers = 2
		cases = append(cases, c)
	}
	three := tiny("rnn", "birnn", "luong", "dot")
	three.Layers = 3
	tied := tiny("gru", "birnn", "luong", "general")
	tied.Embed, tied.TieEmbeddings = tied.Hidden, true
	tiedStacked := tiny("lstm", "rnn", "bahdanau", "dot")
	tiedStacked.Embed, tiedStacked.TieEmbeddings, tiedStacked.Layers = tiedStacked.Hidden, true, 2
	cases = append(cases, three, tied, tiedStacked)
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/%s/%s/%s/%s/ls%g/L%d/tie%v", c.Cell, c.Encoder, c.Decoder, c.Scorer, c.Init, c.LabelSmoothing, max(c.Layers, 1), c.TieEmbeddings), func(t *testing.T) {
			// h = 3e-5: the cosine scorer's learned sharpness starts at 5,
			// sharp enough at hidden 4 that h = 1e-4 leaves a truncation
			// error of 1.2e-6 (measured: 1e-3 → 1e-2, 1e-4 → 1.5e-6).
			gradCase(t, c, 2, 2, 4, 0, 3e-5, func(es []gradcheck.Entry) (gradcheck.Entry, float64) { return gradcheck.Worst(es, 1e-4) })
		})
	}
}

// TestModelGradientsRealistic: batch 64, a dozen time steps, hidden 128, so
// the concatenated encoder annotations, the vocabulary and A = 300 pass 256
// (gorgonia merges slices whose bounds differ by a multiple of 256:
// docs/gorgonia.md, case 1). A random sample of entries of every parameter
// tensor. One combination in CI (each takes 20–90 s on 2 cores); every scorer
// × decoder with ATTNZOO_FULL=1 (make test-full).
func TestModelGradientsRealistic(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	combos := [][2]string{{"general", "luong"}}
	if os.Getenv("ATTNZOO_FULL") != "" {
		combos = nil
		for _, s := range scorers.Names() {
			for _, d := range DecoderNames() {
				combos = append(combos, [2]string{s, d})
			}
		}
	}
	for _, sd := range combos {
		t.Run(sd[0]+"/"+sd[1], func(t *testing.T) {
			c := Config{Cell: "gru", Encoder: "birnn", Decoder: sd[1], Scorer: sd[0],
				SrcVocab: 300, TgtVocab: 300, Embed: 32, Hidden: 128, Attention: 300, MaxSrcLen: 12, Dtype: "float64", Seed: 9}
			// h = 1e-3: the cost (a mean NLL near ln 300) is smooth here and a
			// larger step lowers rounding noise in the difference. That noise
			// is about κ·ε·|f|/h: |f| ≈ 5.7, and the cost sums ~800
			// log-sum-exps, so its relative rounding error is ~20ε — 2.5e-11
			// absolute (measured: 1.0–1.3e-11 over every scorer × decoder).
			// Entries above 3e-5 are held to 1e-6 relative; smaller ones to
			// 3e-11 absolute, the difference's own resolution.
			gradCase(t, c, 64, 11, 12, 3, 1e-3, func(es []gradcheck.Entry) (gradcheck.Entry, float64) {
				return gradcheck.WorstScaled(es, 1e-2, 3e-5)
			})
		})
	}
}
