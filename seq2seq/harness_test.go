package seq2seq

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// reversal makes n source/target pairs of the reversal task: digits 0–9 as
// ids 4–13, lengths in [lo, hi].
func reversal(rng *rand.Rand, n, lo, hi int) (src, tgt [][]int) {
	for i := 0; i < n; i++ {
		l := lo + rng.IntN(hi-lo+1)
		s := make([]int, l)
		for j := range s {
			s[j] = 4 + rng.IntN(10)
		}
		t := slices.Clone(s)
		slices.Reverse(t)
		src, tgt = append(src, s), append(tgt, t)
	}
	return src, tgt
}

func smallConfig(scorer, decoder string) Config {
	return Config{Cell: "gru", Encoder: "birnn", Decoder: decoder, Scorer: scorer,
		SrcVocab: 14, TgtVocab: 14, Embed: 16, Hidden: 32, Attention: 32, MaxSrcLen: 12, Dtype: "float32", Seed: 1}
}

// trainSteps runs steps training steps of tr, each on a fresh batch of n
// reversal pairs of lengths lo…hi drawn from rng, and returns the losses.
func trainSteps(t *testing.T, tr *Trainer, rng *rand.Rand, steps, n, lo, hi int) []float64 {
	t.Helper()
	losses := make([]float64, 0, steps)
	for range steps {
		src, tgt := reversal(rng, n, lo, hi)
		b, _ := NewBatch(src, tgt)
		l, err := tr.Step(b)
		if err != nil {
			t.Fatal(err)
		}
		losses = append(losses, l)
	}
	return losses
}

func TestTrainStepDeterministic(t *testing.T) {
	run := func() []float64 {
		m, err := New(smallConfig("concat", "bahdanau"))
		if err != nil {
			t.Fatal(err)
		}
		opt, _ := NewOptimizer(Optimizer{Name: "adam", LR: 1e-3, Clip: 5})
		tr := NewTrainer(m, opt, 1)
		rng := rand.New(rand.NewPCG(1, 1))
		return trainSteps(t, tr, rng, 5, 8, 3, 6)
	}
	a, b := run(), run()
	if !slices.Equal(a, b) {
		t.Errorf("same seed, different losses:\n%v\n%v", a, b)
	}
	t.Log(a)
}
