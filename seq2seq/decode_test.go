package seq2seq

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
)

// trained returns a model trained briefly on reversal: good enough that
// greedy and beam search disagree on some inputs.
func trained(t *testing.T, cfg Config, steps int) (*Model, *Trainer) {
	t.Helper()
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	opt, _ := NewOptimizer("adam", 3e-3, 5, 0, 0)
	tr := NewTrainer(m, opt, 1)
	rng := rand.New(rand.NewPCG(2, 2))
	for i := 0; i < steps; i++ {
		src, tgt := reversal(rng, 32, 3, 6)
		b, _ := NewBatch(src, tgt)
		if _, err := tr.Step(b); err != nil {
			t.Fatal(err)
		}
	}
	return m, tr
}

// TestBeamOneIsGreedy: beam search of width 1 gives greedy's tokens, scores
// and alignments exactly.
func TestBeamOneIsGreedy(t *testing.T) {
	for _, dec := range Decoders {
		m, tr := trained(t, smallConfig("general", dec), 60)
		src, _ := reversal(rand.New(rand.NewPCG(5, 5)), 40, 3, 8)
		b, _ := NewBatch(src, nil)
		g, err := m.Greedy(b, 10, tr.Cache)
		if err != nil {
			t.Fatal(err)
		}
		bm, err := m.Beam(b, 1, 10, 0, tr.Cache)
		if err != nil {
			t.Fatal(err)
		}
		for i := range g {
			if !slices.Equal(g[i].Tokens, bm[i].Tokens) || g[i].Score != bm[i].Score || len(g[i].Align) != len(bm[i].Align) {
				t.Fatalf("%s input %d: greedy %v (%g), beam 1 %v (%g)", dec, i, g[i].Tokens, g[i].Score, bm[i].Tokens, bm[i].Score)
			}
			for r := range g[i].Align {
				if !slices.Equal(g[i].Align[r], bm[i].Align[r]) {
					t.Fatalf("%s input %d: alignment row %d differs", dec, i, r)
				}
			}
		}
	}
}

// TestBeamBeatsGreedy: with the same normalisation (raw log-probability,
// alpha 0), beam 5's score is at least greedy's on ≥ 99% of inputs and
// higher on average, on a half-trained model where they differ.
func TestBeamBeatsGreedy(t *testing.T) {
	m, tr := trained(t, smallConfig("concat", "bahdanau"), 60)
	src, _ := reversal(rand.New(rand.NewPCG(6, 6)), 200, 3, 8)
	b, _ := NewBatch(src, nil)
	g, err := m.Greedy(b, 10, tr.Cache)
	if err != nil {
		t.Fatal(err)
	}
	bm, err := m.Beam(b, 5, 10, 0, tr.Cache)
	if err != nil {
		t.Fatal(err)
	}
	atLeast, sumG, sumB, differ := 0, 0.0, 0.0, 0
	for i := range g {
		if bm[i].Score >= g[i].Score-1e-9 {
			atLeast++
		}
		if !slices.Equal(g[i].Tokens, bm[i].Tokens) {
			differ++
		}
		sumG += g[i].Score
		sumB += bm[i].Score
		if len(bm[i].Align) != len(bm[i].Tokens)+1 {
			t.Errorf("input %d: %d alignment rows for %d tokens + </s>", i, len(bm[i].Align), len(bm[i].Tokens))
		}
		for _, row := range bm[i].Align {
			if len(row) != len(src[i]) {
				t.Fatalf("input %d: alignment row of %d, source has %d", i, len(row), len(src[i]))
			}
		}
	}
	t.Logf("beam ≥ greedy on %d/%d; %d outputs differ; mean score greedy %.4f, beam %.4f", atLeast, len(g), differ, sumG/200, sumB/200)
	if float64(atLeast) < 0.99*float64(len(g)) || sumB <= sumG {
		t.Errorf("beam ≥ greedy on %d/%d, mean beam %.4f vs greedy %.4f", atLeast, len(g), sumB/200, sumG/200)
	}
}

// TestCheckpointRoundTrip: a loaded model decodes exactly as the saved one.
func TestCheckpointRoundTrip(t *testing.T) {
	for _, cfg := range []Config{smallConfig("concat", "luong"), func() Config { c := smallConfig("location", "bahdanau"); c.Cell = "lstm"; return c }()} {
		m, tr := trained(t, cfg, 20)
		path := filepath.Join(t.TempDir(), "checkpoint")
		if err := m.Save(path, []string{"a"}, []string{"b"}, 20); err != nil {
			t.Fatal(err)
		}
		m2, ck, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if ck.Step != 20 || ck.SrcVocab[0] != "a" {
			t.Errorf("checkpoint metadata %+v", ck.Step)
		}
		src, _ := reversal(rand.New(rand.NewPCG(7, 7)), 20, 3, 8)
		b, _ := NewBatch(src, nil)
		h1, err := m.Beam(b, 3, 10, 1, tr.Cache)
		if err != nil {
			t.Fatal(err)
		}
		h2, err := m2.Beam(b, 3, 10, 1, NewGraphCache(0))
		if err != nil {
			t.Fatal(err)
		}
		for i := range h1 {
			if !slices.Equal(h1[i].Tokens, h2[i].Tokens) || h1[i].Score != h2[i].Score {
				t.Errorf("input %d: before %v %v, after %v %v", i, h1[i].Tokens, h1[i].Score, h2[i].Tokens, h2[i].Score)
			}
		}
	}
}

func TestTopK(t *testing.T) {
	got := topK([]float64{0.1, 0.5, 0.5, -1, 0.9}, 3)
	if !slices.Equal(got, []int{4, 1, 2}) {
		t.Errorf("topK = %v, want [4 1 2]", got)
	}
}

func TestOptimizerHandWorked(t *testing.T) {
	// One Adam step moves each parameter by lr·sign(g) (m̂ = g, v̂ = g²),
	// here −0.1 and +0.1; SGD by lr·g; a clip of 2.5 on the gradient (3, 4)
	// (norm 5) halves it.
	mk := func() *Model { m, _ := New(smallConfig("dot", "luong")); return m }
	m := mk()
	ps := m.Params()[:1]
	n := ps[0].Size()
	g := make([]float64, n)
	g[0], g[1] = 3, -4
	before0, before1 := ps[0].At(0), ps[0].At(1)
	o, _ := NewOptimizer("adam", 0.1, 0, 0, 0)
	o.Update(ps, [][]float64{g})
	if d0, d1 := ps[0].At(0)-before0, ps[0].At(1)-before1; math.Abs(d0+0.1) > 1e-6 || math.Abs(d1-0.1) > 1e-6 {
		t.Errorf("adam moved %g, %g; want −0.1, +0.1", d0, d1)
	}
	o, _ = NewOptimizer("sgd", 0.1, 2.5, 0, 0)
	b0 := ps[0].At(0)
	o.Update(ps, [][]float64{g})
	if d := ps[0].At(0) - b0; math.Abs(d+0.15) > 1e-6 || o.LastNorm != 5 {
		t.Errorf("sgd with clip moved %g (want −0.1·3·0.5 = −0.15), norm %g (want 5)", d, o.LastNorm)
	}
	o, _ = NewOptimizer("sgd", 1, 0, 0.5, 10)
	for i := 0; i < 25; i++ {
		o.t = i
		if want := math.Pow(0.5, float64(i/10)); o.Rate() != want {
			t.Errorf("step %d: rate %g, want %g", i, o.Rate(), want)
		}
	}
	if _, err := NewOptimizer("adamw", 1, 0, 0, 0); err == nil {
		t.Error("adamw accepted")
	}
}
