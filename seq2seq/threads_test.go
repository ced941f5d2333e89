package seq2seq

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/attnzoo/attnzoo/internal/gx"
)

// TestThreadsSameBits: the anchor model at hidden 256 (every split of a
// step reaches its size there: products over B's panels, Adam and the
// gradients' sums of squares, the GRU's rows, the additive score, its
// output and gradient, the context and its gradient over batch rows)
// trained for three steps on two threads gives the one-thread run's losses
// and parameters bit for bit, and decodes the same greedy and beam
// hypotheses: every split computes each value as one thread would.
func TestThreadsSameBits(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	if !gx.OwnProducts() && strings.HasPrefix(gx.BLAS(), "openblas") {
		// OpenBLAS's sgemm sums a block in an order that depends on the
		// block's shape, so splitting a product over threads moves bits:
		// the promise holds for kern's AVX-512 and AVX2 kernels and for
		// gonum's BLAS, and this processor (neither AVX-512 nor AVX2 with
		// FMA) with -tags openblas has neither (found on an AVX2 EPYC
		// before kern had its AVX2 kernel; it failed at 0669cbe too)
		t.Skipf("float32 products on %s: bit-identity across threads is kern's and gonum's", gx.BLAS())
	}
	defer gx.SetThreads(gx.Threads())
	run := func(threads int) ([]float64, [][]float32, []Hypothesis, []Hypothesis) {
		gx.SetThreads(threads)
		cfg := AnchorConfig()
		cfg.Hidden, cfg.Attention = 256, 256
		m, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		opt, _ := NewOptimizer(Optimizer{Name: "adam", LR: 1e-3})
		tr := NewTrainer(m, opt, 1)
		rng := rand.New(rand.NewPCG(5, 5))
		var losses []float64
		for range 3 {
			l, err := tr.Step(AnchorBatch(rng))
			if err != nil {
				t.Fatal(err)
			}
			losses = append(losses, l)
		}
		var ps [][]float32
		for _, p := range m.Params() {
			ps = append(ps, slices.Clone(p.Data32()))
		}
		b := AnchorBatch(rng)
		b.TgtIn, b.TgtOut = nil, nil
		greedy, err := m.Greedy(b, 12, NewGraphCache(0))
		if err != nil {
			t.Fatal(err)
		}
		beam, err := m.Beam(b, BeamOptions{Width: 5, MaxLen: 12, Alpha: 1})
		if err != nil {
			t.Fatal(err)
		}
		return losses, ps, greedy, beam
	}
	l1, p1, g1, b1 := run(1)
	l2, p2, g2, b2 := run(2)
	if !slices.Equal(l1, l2) {
		t.Errorf("losses: one thread %v, two %v", l1, l2)
	}
	for i := range p1 {
		if !slices.Equal(p1[i], p2[i]) {
			t.Errorf("parameter %d differs on two threads", i)
		}
	}
	for i := range g1 {
		if !slices.Equal(g1[i].Tokens, g2[i].Tokens) || g1[i].Score != g2[i].Score ||
			!slices.Equal(b1[i].Tokens, b2[i].Tokens) || b1[i].Score != b2[i].Score {
			t.Fatalf("source %d: decodings differ on two threads", i)
		}
	}
}
