package seq2seq

import (
	"math/rand/v2"
	"testing"
)

// anchorConfig is the toy-reverse speed anchor of shared/anchors/README.md:
// vocabulary 32, source 12, target 13, batch 64, embedding 64, hidden 128,
// unidirectional GRU encoder, GRU decoder with Bahdanau (concat) attention,
// A = 128, float32. (Our decoder adds the attentional layer
// tanh(W_s s + W_c c + b) before the vocabulary, and the scorer a bias.)
func anchorConfig() Config {
	return Config{Cell: "gru", Encoder: "rnn", Decoder: "bahdanau", Scorer: "concat",
		SrcVocab: 32, TgtVocab: 32, Embed: 64, Hidden: 128, Attention: 128, MaxSrcLen: 12, Dtype: "float32", Seed: 1}
}

func anchorBatch(rng *rand.Rand) *Batch {
	src := make([][]int, 64)
	tgt := make([][]int, 64)
	for i := range src {
		src[i] = make([]int, 12)
		tgt[i] = make([]int, 12)
		for j := range src[i] {
			src[i][j] = 4 + rng.IntN(28)
		}
		for j := range tgt[i] {
			tgt[i][j] = src[i][11-j]
		}
	}
	b, _ := NewBatch(src, tgt)
	return b
}

// BenchmarkTrainStep times one training step (forward, backward, Adam) of
// the anchor workload.
func BenchmarkTrainStep(b *testing.B) {
	m, err := New(anchorConfig())
	if err != nil {
		b.Fatal(err)
	}
	opt, _ := NewOptimizer("adam", 1e-3, 0, 0, 0)
	tr := NewTrainer(m, opt, 1)
	rng := rand.New(rand.NewPCG(1, 1))
	batches := []*Batch{anchorBatch(rng), anchorBatch(rng)}
	if _, err := tr.Step(batches[0]); err != nil { // builds the graph
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := tr.Step(batches[i%2]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGreedy times greedy decoding of one batch of 64 (13 steps).
func BenchmarkGreedy(b *testing.B) {
	m, _ := New(anchorConfig())
	cache := NewGraphCache(0)
	bt := anchorBatch(rand.New(rand.NewPCG(2, 2)))
	bt.TgtIn, bt.TgtOut = nil, nil
	if _, err := m.Greedy(bt, 12, cache); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := m.Greedy(bt, 12, cache); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(64*b.N)/b.Elapsed().Seconds(), "seq/s")
}

// BenchmarkBeam5 times beam search of width 5 on the same batch.
func BenchmarkBeam5(b *testing.B) {
	m, _ := New(anchorConfig())
	cache := NewGraphCache(0)
	bt := anchorBatch(rand.New(rand.NewPCG(2, 2)))
	if _, err := m.Beam(bt, 5, 12, 1, cache); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := m.Beam(bt, 5, 12, 1, cache); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(64*b.N)/b.Elapsed().Seconds(), "seq/s")
}
