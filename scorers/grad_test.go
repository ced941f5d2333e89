package scorers_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/attnzoo/attnzoo/internal/gradcheck"
	"github.com/attnzoo/attnzoo/internal/gx"
	"github.com/attnzoo/attnzoo/scorers"
)

// TestGradients checks, for every scorer and normaliser, the gradient of a
// cost that reaches the scores, the weights and the context, with respect to
// every parameter of the scorer and to the query, keys and values, against
// central finite differences (gonum's fd), entry by entry, in float64, to
// 1e-6 relative.
func TestGradients(t *testing.T) {
	eachScorerNorm(t, 31, 32, func(t *testing.T, s scorers.Scorer, norm string, rng *rand.Rand) {
		q, k, v, m := gradInputs(rng)
		n, _ := scorers.NewNormalizer(norm)
		build := func(g *gx.Graph) *gx.Node {
			st := scorers.Prepare(g, s, g.Bind(k), g.Bind(v), g.Bind(m)).Attend(g, g.Bind(q), n)
			prng := rand.New(rand.NewPCG(5, 6)) // the same projections in both graphs
			c := g.DotAll(st.Scores, g.Bind(param(prng, "r.s", pB, pS)))
			c = g.Add(c, g.DotAll(st.Weights, g.Bind(param(prng, "r.w", pB, pS))))
			return g.Add(c, g.DotAll(st.Context, g.Bind(param(prng, "r.c", pB, 3))))
		}
		wrt := append([]*gx.Param{q, k, v}, s.Params()...)
		if _, pos := s.(scorers.PositionBased); pos {
			wrt = append([]*gx.Param{q, v}, s.Params()...) // keys reach nothing
		}
		gradcheck.Require(t, build, wrt, gradcheck.Options{}, 1e-4)
	})
}

// gradInputs are the gradient tests' query [pB, pD], keys [pB, pS, pD] and
// values [pB, pS, 3] drawn from rng, and a fixed mask [pB, pS] keeping 5, 1
// and 3 keys of its three rows.
func gradInputs(rng *rand.Rand) (q, k, v, m *gx.Param) {
	q = param(rng, "in.q", pB, pD)
	k = param(rng, "in.k", pB, pS, pD)
	v = param(rng, "in.v", pB, pS, 3)
	m = gx.NewParam("in.m", gx.Float64, pB, pS)
	m.Set([]float64{1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 0, 0})
	return q, k, v, m
}

func param(rng *rand.Rand, name string, shape ...int) *gx.Param {
	p := gx.NewParam(name, gx.Float64, shape...)
	p.Uniform(rng, 1)
	return p
}

// TestGradientsAtRealisticSize repeats the check at a size where axes pass
// 256 (B=64, S=12, D=128, A=300: gorgonia merges slices whose bounds differ
// by a multiple of 256, docs/gorgonia.md, case 1), on a random sample of
// entries of every tensor.
func TestGradientsAtRealisticSize(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	const B, S, D, A = 64, 12, 128, 300
	for _, name := range scorers.Names() {
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(41, 42))
			s, err := scorers.New(name, scorers.Config{Query: D, Key: D, Settings: scorers.Values{"attention": A, "sharpness": 5}, MaxLen: S + 4, Rand: rng, Learn: true})
			if err != nil {
				t.Fatal(err)
			}
			q := param(rng, "in.q", B, D)
			k := param(rng, "in.k", B, S, D)
			m := gx.NewParam("in.m", gx.Float64, B, S)
			mask := make([]float64, B*S)
			for b := 0; b < B; b++ {
				for i := 0; i < S-b%S; i++ {
					mask[b*S+i] = 1
				}
			}
			m.Set(mask)
			n, _ := scorers.NewNormalizer("softmax")
			build := func(g *gx.Graph) *gx.Node {
				st := scorers.Prepare(g, s, g.Bind(k), nil, g.Bind(m)).Attend(g, g.Bind(q), n)
				prng := rand.New(rand.NewPCG(7, 8))
				return g.DotAll(st.Context, g.Bind(param(prng, "r.c", B, D)))
			}
			wrt := append([]*gx.Param{q, k}, s.Params()...)
			es, err := gradcheck.Check(build, wrt, gradcheck.Options{Sample: 20, Rand: rng})
			if err != nil {
				t.Fatal(err)
			}
			// entries below 1% of their tensor's largest are judged against that 1%
			if e, r := gradcheck.WorstScaled(es, 1e-2, 1e-5); r > 1e-6 {
				t.Errorf("worst relative error %.3g at %v", r, e)
			}
		})
	}
}

func ExampleEvaluate() {
	s, _ := scorers.New("dot", scorers.Config{Query: 3, Key: 3})
	r, _ := scorers.Evaluate(s, "softmax", []float64{5, 1, 20},
		[][]float64{{3, 12, 45}, {59, 2, 5}, {1, 43, 5}, {4, 3, 45.3}}, nil, nil)
	fmt.Printf("scores %.0f\nweights %.3f\n", r.Scores, r.Weights)
	// Output:
	// scores [927 397 148 929]
	// weights [0.119 0.000 0.000 0.881]
}
