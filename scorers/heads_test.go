package scorers_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/attnzoo/attnzoo/internal/gradcheck"
	"github.com/attnzoo/attnzoo/internal/gx"
	"github.com/attnzoo/attnzoo/scorers"
)

// TestMultiHeadGradients is TestGradients for a scorer with several heads
// (projected-dot, 3 heads of 2 = attention 6): the cost reaches each head's
// scores and weights, their mean and the context; every parameter, the
// query, keys and values against central finite differences, 1e-6 relative,
// with a one-key row and a row of three keys in the mask.
func TestMultiHeadGradients(t *testing.T) {
	const h = 3
	for _, norm := range scorers.NormalizerNames() {
		t.Run(norm, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(31, 32))
			s, err := scorers.New("projected-dot", scorers.Config{Query: pD, Key: pD, Settings: scorers.Values{"attention": pA, "heads": h}, Rand: rng, Learn: true})
			if err != nil {
				t.Fatal(err)
			}
			if scorers.HeadsOf(s) != h {
				t.Fatalf("HeadsOf = %d, want %d", scorers.HeadsOf(s), h)
			}
			q, k, v, m := gradInputs(rng)
			n, _ := scorers.NewNormalizer(norm)
			build := func(g *gx.Graph) *gx.Node {
				st := scorers.Prepare(g, s, g.Bind(k), g.Bind(v), g.Bind(m)).Attend(g, g.Bind(q), n)
				prng := rand.New(rand.NewPCG(5, 6)) // the same projections in both graphs
				c := g.DotAll(st.Scores, g.Bind(param(prng, "r.s", pB*h, pS)))
				c = g.Add(c, g.DotAll(st.HeadWeights, g.Bind(param(prng, "r.hw", pB*h, pS))))
				c = g.Add(c, g.DotAll(st.Weights, g.Bind(param(prng, "r.w", pB, pS))))
				return g.Add(c, g.DotAll(st.Context, g.Bind(param(prng, "r.c", pB, 3))))
			}
			gradcheck.Require(t, build, append([]*gx.Param{q, k, v}, s.Params()...), gradcheck.Options{}, 1e-4)
		})
	}
}

// TestHeadsMustDivide: an attention size the heads do not divide is refused
// with both numbers named.
func TestHeadsMustDivide(t *testing.T) {
	_, err := scorers.New("projected-dot", scorers.Config{Query: 4, Key: 4, Settings: scorers.Values{"attention": 6, "heads": 4}})
	if err == nil {
		t.Fatal("attention 6 with 4 heads: no error")
	}
	for _, want := range []string{"6", "4", "heads"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
}
