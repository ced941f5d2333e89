package seq2seq

import (
	"math/rand/v2"
	"testing"
)

// The anchor workload: AnchorConfig and AnchorBatch (anchor.go).
func anchorConfig() Config              { return AnchorConfig() }
func anchorBatch(rng *rand.Rand) *Batch { return AnchorBatch(rng) }

// benchTrainSteps times tr's training steps on the two batches in turn,
// after a first step that builds the graph.
func benchTrainSteps(b *testing.B, tr *Trainer, batches ...*Batch) {
	b.Helper()
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

// BenchmarkTrainStep times one training step (forward, backward, Adam) of
// the anchor workload.
func BenchmarkTrainStep(b *testing.B) {
	m, err := New(anchorConfig())
	if err != nil {
		b.Fatal(err)
	}
	opt, _ := NewOptimizer(Optimizer{Name: "adam", LR: 1e-3})
	rng := rand.New(rand.NewPCG(1, 1))
	benchTrainSteps(b, NewTrainer(m, opt, 1), anchorBatch(rng), anchorBatch(rng))
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
	if _, err := m.Beam(bt, BeamOptions{Width: 5, MaxLen: 12, Alpha: 1, Cache: cache}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := m.Beam(bt, BeamOptions{Width: 5, MaxLen: 12, Alpha: 1, Cache: cache}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(64*b.N)/b.Elapsed().Seconds(), "seq/s")
}

// BenchmarkCNNStep times one training step (forward, backward, Adam) of the
// cnn captioner: batch 32 of 64×64×3 images, conv [32, 64, 64] (an 8×8
// grid of 64-vectors), LSTM hidden 128 with concat attention, β and the
// doubly stochastic penalty, captions of 12 words (13 steps with </s>).
func BenchmarkCNNStep(b *testing.B) {
	cfg := Config{Cell: "lstm", Encoder: "cnn", Decoder: "bahdanau", Scorer: "concat", TgtVocab: 40, Embed: 64, Hidden: 128, Attention: 128,
		EncoderSettings: map[string][]float64{"conv": Ints(DefaultConv()...)}, ImageC: 3, ImageH: 64, ImageW: 64, Beta: true, Lambda: 1.0 / 64, Dtype: "float32", Seed: 1}
	m, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	opt, _ := NewOptimizer(Optimizer{Name: "adam", LR: 1e-3, Clip: 5})
	rng := rand.New(rand.NewPCG(1, 1))
	benchTrainSteps(b, NewTrainer(m, opt, 1), imageBatch(rng, 32, 64, 64, 3, 64, 12, 40), imageBatch(rng, 32, 64, 64, 3, 64, 12, 40))
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
}
