package scorers

import (
	"math"

	"github.com/attnzoo/attnzoo/internal/gx"
)

// LearnedScaledDot is the scaled dot product with a learned temperature,
//
//	s_i = qᵀ k_i / τ,   β = 1/τ learned, starting at 1/√Dk
//
// so it starts as scaled-dot (τ = √Dk, Vaswani et al.'s footnote 4) and
// learns how sharp to be. The parameter "scale" holds β rather than τ, as
// cosine's learned sharpness does: an optimiser's steps are then relative
// to the scores' scale whichever way it must move. Needs Dq = Dk.
type LearnedScaledDot struct {
	core
	Scale *gx.Param // β = 1/τ, shape [1]
}

var _ Scorer = (*LearnedScaledDot)(nil)

func init() {
	Register("learned-scaled-dot", func(c Config) (Scorer, error) {
		if err := needSame("learned-scaled-dot", c); err != nil {
			return nil, err
		}
		s := &LearnedScaledDot{core: core{name: "learned-scaled-dot", cfg: c}}
		s.Scale = s.param("scale", 1)
		s.Scale.SetAt(0, 1/math.Sqrt(float64(c.Key)))
		return s, nil
	})
	RegisterAlias("learned-temperature", "learned-scaled-dot")
}

func (s *LearnedScaledDot) Formula() string {
	return "β · qᵀ k_i, β = 1/τ learned from 1/√Dk (needs Dq = Dk)"
}

// ProjectKeys returns the keys themselves.
func (s *LearnedScaledDot) ProjectKeys(g *gx.Graph, keys *gx.Node) *gx.Node {
	return s.sameKeys(g, keys)
}

// ScoreProjected returns β · qᵀ k_i for every key.
func (s *LearnedScaledDot) ScoreProjected(g *gx.Graph, q, keys *gx.Node) *gx.Node {
	if !s.checkQuery(g, q) || !s.checkBatch(g, q, keys) {
		return nil
	}
	return g.ScaleBy(g.BMV(keys, q, 1), g.Bind(s.Scale))
}

// Cost: the scale, one value.
func (LearnedScaledDot) Cost(CostSizes) Cost { return Cost{Params: 1} }
