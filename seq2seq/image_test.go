package seq2seq

import (
	"math/rand/v2"
	"testing"

	"github.com/attnzoo/attnzoo/internal/gradcheck"
)

func regionBatch(rng *rand.Rand, B, S, P int) *Batch {
	regions := make([][]float32, B)
	tgt := make([][]int, B)
	for i := range regions {
		regions[i] = make([]float32, S*P)
		for j := range regions[i] {
			regions[i][j] = float32(rng.NormFloat64())
		}
		tgt[i] = make([]int, 1+i%3)
		for j := range tgt[i] {
			tgt[i][j] = 4 + rng.IntN(6)
		}
	}
	b, err := NewRegionBatch(regions, S, P, tgt)
	if err != nil {
		panic(err)
	}
	return b
}

// TestRegionGradients: the region encoder, Show, Attend and Tell's gating
// scalar and the doubly stochastic penalty, through the whole model, agree
// with finite differences (every entry, float64).
func TestRegionGradients(t *testing.T) {
	for _, cfg := range []Config{
		{Cell: "lstm", Encoder: "features", Decoder: "bahdanau", Scorer: "concat", TgtVocab: 10, Embed: 3, Hidden: 4, Attention: 3,
			Regions: 4, RegionSize: 5, Beta: true, Lambda: 0.7, Dtype: "float64", Seed: 3},
		{Cell: "gru", Encoder: "patches", Decoder: "luong", Scorer: "general", TgtVocab: 10, Embed: 3, Hidden: 4, Attention: 3,
			Regions: 4, RegionSize: 5, Beta: true, Lambda: 0.3, Dtype: "float64", Seed: 4},
	} {
		t.Run(cfg.Cell+"/"+cfg.Decoder, func(t *testing.T) {
			m, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			b := regionBatch(rand.New(rand.NewPCG(1, 2)), 3, 4, 5)
			gradcheck.Require(t, trainCost(m, b), m.Params(), gradcheck.Options{Step: 3e-5}, 1e-4)
		})
	}
}

// TestRegionDecodes: a region model decodes with beam search (an alignment
// row over every region per output token), and training lowers its loss on
// a batch.
func TestRegionDecodes(t *testing.T) {
	cfg := Config{Cell: "gru", Encoder: "patches", Decoder: "bahdanau", Scorer: "dot", TgtVocab: 10, Embed: 8, Hidden: 16, Attention: 8,
		Regions: 9, RegionSize: 12, Beta: true, Lambda: 1, Dtype: "float32", Seed: 1}
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b := regionBatch(rand.New(rand.NewPCG(3, 3)), 5, 9, 12)
	hs, err := m.Beam(b, BeamOptions{Width: 3, MaxLen: 6, Alpha: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i, h := range hs {
		for _, row := range h.Align {
			if len(row) != 9 {
				t.Fatalf("hypothesis %d: alignment row over %d regions, want 9", i, len(row))
			}
		}
	}
	opt, _ := NewOptimizer(Optimizer{Name: "adam", LR: 1e-2, Clip: 5})
	tr := NewTrainer(m, opt, 1)
	first, _ := tr.Step(b)
	var last float64
	for i := 0; i < 30; i++ {
		last, err = tr.Step(b)
		if err != nil {
			t.Fatal(err)
		}
	}
	if last >= first {
		t.Errorf("loss %g → %g after 30 steps on one batch", first, last)
	}
}

// TestNLLLeavesOutThePenalty: the doubly stochastic penalty λ Σ_i (1 −
// Σ_t α_ti)² is part of the training loss, not of the likelihood: NLL of a
// model with λ = 1 equals NLL of the same weights with λ = 0, and the
// training loss with λ = 1 is larger than the mean NLL by the penalty
// (attention over 9 regions summed over 4 steps cannot make every Σ_t α_ti
// equal to 1, so the penalty is positive).
func TestNLLLeavesOutThePenalty(t *testing.T) {
	cfg := Config{Cell: "gru", Encoder: "patches", Decoder: "bahdanau", Scorer: "dot", TgtVocab: 10, Embed: 8, Hidden: 16, Attention: 8,
		Regions: 9, RegionSize: 12, Beta: true, Lambda: 1, Dtype: "float64", Seed: 1}
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b := regionBatch(rand.New(rand.NewPCG(3, 3)), 5, 9, 12)
	cache := NewGraphCache(0)
	defer cache.Close()
	withPenalty, n, err := m.NLL(b, cache)
	if err != nil {
		t.Fatal(err)
	}
	m.Cfg.Lambda = 0
	without, _, err := m.NLL(b, cache)
	if err != nil {
		t.Fatal(err)
	}
	if withPenalty != without {
		t.Errorf("NLL with λ = 1: %v, with λ = 0: %v; the penalty is not the likelihood's", withPenalty, without)
	}
	m.Cfg.Lambda = 1
	loss, _, err := m.Loss(b, rand.New(rand.NewPCG(0, 0)), cache)
	if err != nil {
		t.Fatal(err)
	}
	if !(loss > without/float64(n)) {
		t.Errorf("training loss %v with λ = 1 is not above the mean NLL %v", loss, without/float64(n))
	}
}
