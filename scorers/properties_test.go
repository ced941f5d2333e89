package scorers_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/attnzoo/attnzoo/internal/gx"
	"github.com/attnzoo/attnzoo/scorers"
)

// Registry-wide properties: every test here runs over scorers.Names(), so a
// newly registered scorer is checked without touching this file.

const (
	pB, pS, pD, pA = 3, 5, 4, 6
)

func newScorer(t *testing.T, name string, rng *rand.Rand, dt any) scorers.Scorer {
	t.Helper()
	c := scorers.Config{Query: pD, Key: pD, Settings: scorers.Values{"attention": pA, "sharpness": 3}, MaxLen: pS + 2, Rand: rng, Learn: true}
	if dt == gx.Float32 {
		c.Dtype = gx.Float32
	}
	s, err := scorers.New(name, c)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func normals(rng *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	return x
}

// batch holds one batch of attention inputs.
type batch struct {
	q, keys, values, mask []float64
	dv                    int
}

// eachScorerNorm runs f as a subtest "scorer/normaliser" for every
// registered scorer under every normaliser, with the scorer built in float64
// from rng, a generator seeded (seed1, seed2) afresh for each subtest.
func eachScorerNorm(t *testing.T, seed1, seed2 uint64, f func(t *testing.T, s scorers.Scorer, norm string, rng *rand.Rand)) {
	for _, name := range scorers.Names() {
		for _, norm := range scorers.NormalizerNames() {
			t.Run(name+"/"+norm, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(seed1, seed2))
				f(t, newScorer(t, name, rng, gx.Float64), norm, rng)
			})
		}
	}
}

func randomBatch(rng *rand.Rand) batch {
	b := batch{q: normals(rng, pB*pD), keys: normals(rng, pB*pS*pD), values: normals(rng, pB*pS*3), dv: 3}
	// row 0: all present; row 1: only the first key; row 2: the last two masked
	b.mask = []float64{1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 0, 0}
	return b
}

type outputs struct{ scores, weights, context []float64 }

// attend runs one batch through Prepare and Attend, as the decoders do.
func attend(t *testing.T, s scorers.Scorer, norm string, b batch) outputs {
	t.Helper()
	dt := gx.Float64
	if ps := s.Params(); len(ps) > 0 {
		dt = ps[0].Value.Dtype()
	}
	g := gx.NewGraph(dt)
	q := g.Const("in.q", b.q, pB, pD)
	k := g.Const("in.k", b.keys, pB, pS, pD)
	v := g.Const("in.v", b.values, pB, pS, b.dv)
	m := g.Const("in.m", b.mask, pB, pS)
	n, err := scorers.NewNormalizer(norm)
	if err != nil {
		t.Fatal(err)
	}
	st := scorers.Prepare(g, s, k, v, m).Attend(g, q, n)
	g.Watch(st.Scores)
	g.Watch(st.Weights)
	g.Watch(st.Context)
	if err := g.Run(); err != nil {
		t.Fatal(err)
	}
	var o outputs
	o.scores, _ = g.Value(st.Scores)
	o.weights, _ = g.Value(st.Weights)
	o.context, _ = g.Value(st.Context)
	return o
}

func TestWeightsSumToOneAndMaskedAreZero(t *testing.T) {
	eachScorerNorm(t, 1, 2, func(t *testing.T, s scorers.Scorer, norm string, rng *rand.Rand) {
		b := randomBatch(rng)
		o := attend(t, s, norm, b)
		for r := 0; r < pB; r++ {
			sum := 0.0
			for i := 0; i < pS; i++ {
				w := o.weights[r*pS+i]
				sum += w
				if b.mask[r*pS+i] == 0 && w != 0 {
					t.Errorf("row %d key %d masked but weight %g", r, i, w)
				}
				if w < 0 || math.IsNaN(w) {
					t.Errorf("row %d key %d weight %g", r, i, w)
				}
			}
			if math.Abs(sum-1) > 1e-12 {
				t.Errorf("row %d weights sum to %.17g", r, sum)
			}
		}
		// row 1 has only its first key: weight exactly 1 there
		if o.weights[pS] != 1 {
			t.Errorf("only unmasked key has weight %.17g, want 1", o.weights[pS])
		}
	})
}

// TestLargeScoresStayFinite: scores far apart (±1000) and a row whose only
// unmasked key is its first must not give NaN (gorgonia's SoftMax does:
// docs/gorgonia.md, case 3).
func TestLargeScoresStayFinite(t *testing.T) {
	for _, dt := range []any{gx.Float64, gx.Float32} {
		for _, name := range scorers.Names() {
			t.Run(name, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(5, 5))
				s := newScorer(t, name, rng, dt)
				b := randomBatch(rng)
				for i := range b.q {
					b.q[i] *= 300
				}
				for i := range b.keys {
					b.keys[i] *= 300
				}
				o := attend(t, s, "softmax", b)
				for i, w := range o.weights {
					if math.IsNaN(w) || math.IsInf(w, 0) {
						t.Fatalf("weight %d is %v", i, w)
					}
				}
			})
		}
	}
}

func TestScaledDotIsDotOverSqrtD(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	b := randomBatch(rng)
	dot := attend(t, newScorer(t, "dot", rng, gx.Float64), "softmax", b)
	sc := attend(t, newScorer(t, "scaled-dot", rng, gx.Float64), "softmax", b)
	for i := range dot.scores {
		if want := dot.scores[i] / math.Sqrt(pD); math.Abs(sc.scores[i]-want) > 1e-14 {
			t.Errorf("score %d: scaled-dot %.17g, dot/√%d %.17g", i, sc.scores[i], pD, want)
		}
	}
}

// TestPermutationEquivariance: permuting keys (with their values and mask)
// permutes the scores and weights, and leaves the context unchanged.
// Position-based scorers (location) are by definition not equivariant:
// for them the scores stay where they are.
func TestPermutationEquivariance(t *testing.T) {
	perm := []int{3, 0, 4, 1, 2} // new position i holds old key perm[i]
	eachScorerNorm(t, 11, 12, func(t *testing.T, s scorers.Scorer, norm string, rng *rand.Rand) {
		b := randomBatch(rng)
		for i := range b.mask {
			b.mask[i] = 1
		}
		b.mask[2] = 0
		p := b
		p.keys = permute(b.keys, perm, pD)
		p.values = permute(b.values, perm, b.dv)
		p.mask = permute(b.mask, perm, 1)
		o, po := attend(t, s, norm, b), attend(t, s, norm, p)
		if _, pos := s.(scorers.PositionBased); pos {
			for i := range o.scores {
				if o.scores[i] != po.scores[i] {
					t.Errorf("position-based score %d changed: %g → %g", i, o.scores[i], po.scores[i])
				}
			}
			return
		}
		for r := 0; r < pB; r++ {
			for i, j := range perm {
				if a, c := po.scores[r*pS+i], o.scores[r*pS+j]; math.Abs(a-c) > 1e-12 {
					t.Errorf("row %d: permuted score %d = %g, original score %d = %g", r, i, a, j, c)
				}
			}
		}
		for i := range o.context {
			if math.Abs(o.context[i]-po.context[i]) > 1e-12 {
				t.Errorf("context[%d] %g changed to %g", i, o.context[i], po.context[i])
			}
		}
	})
}

func permute(x []float64, perm []int, d int) []float64 {
	out := make([]float64, len(x))
	S := len(perm)
	for b := 0; b < len(x)/(S*d); b++ {
		for i, j := range perm {
			copy(out[(b*S+i)*d:(b*S+i+1)*d], x[(b*S+j)*d:(b*S+j+1)*d])
		}
	}
	return out
}

// TestBatchRowsIndependent: a batched call gives each row what a call with
// that row alone gives.
func TestBatchRowsIndependent(t *testing.T) {
	for _, name := range scorers.Names() {
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(21, 22))
			s := newScorer(t, name, rng, gx.Float64)
			b := randomBatch(rng)
			o := attend(t, s, "softmax", b)
			for r := 0; r < pB; r++ {
				keys := make([][]float64, pS)
				vals := make([][]float64, pS)
				for i := range keys {
					keys[i] = b.keys[(r*pS+i)*pD : (r*pS+i+1)*pD]
					vals[i] = b.values[(r*pS+i)*b.dv : (r*pS+i+1)*b.dv]
				}
				one, err := scorers.Evaluate(s, "softmax", b.q[r*pD:(r+1)*pD], keys, vals, b.mask[r*pS:(r+1)*pS])
				if err != nil {
					t.Fatal(err)
				}
				for i := range one.Weights {
					if math.Abs(one.Weights[i]-o.weights[r*pS+i]) > 1e-14 {
						t.Errorf("row %d weight %d: alone %g, batched %g", r, i, one.Weights[i], o.weights[r*pS+i])
					}
				}
			}
		})
	}
}

// TestSizeMismatch: a query or keys of the wrong size is an error naming
// the sizes, for every scorer; the dot family refuses Dq ≠ Dk up front.
func TestSizeMismatch(t *testing.T) {
	for _, name := range scorers.Names() {
		t.Run(name, func(t *testing.T) {
			s := newScorer(t, name, rand.New(rand.NewPCG(1, 1)), gx.Float64)
			_, err := scorers.Evaluate(s, "softmax", make([]float64, pD+1), [][]float64{make([]float64, pD)}, nil, nil)
			if err == nil {
				t.Fatal("query of size 5 accepted by a scorer built for 4")
			}
			if msg := err.Error(); !strings.Contains(msg, "5") || !strings.Contains(msg, "4") {
				t.Errorf("error %q does not name the sizes 5 and 4", msg)
			}
			_, err = scorers.Evaluate(s, "softmax", make([]float64, pD), [][]float64{make([]float64, pD+2)}, nil, nil)
			if err == nil || !strings.Contains(err.Error(), "6") {
				t.Errorf("keys of size 6: error %v does not name the size", err)
			}
		})
	}
	for _, name := range []string{"dot", "scaled-dot", "cosine"} {
		_, err := scorers.New(name, scorers.Config{Query: 3, Key: 4})
		if err == nil || !strings.Contains(err.Error(), "Dq=3") || !strings.Contains(err.Error(), "Dk=4") {
			t.Errorf("%s with Dq=3, Dk=4: error %v, want one naming Dq=3 and Dk=4", name, err)
		}
	}
}
