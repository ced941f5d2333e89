package scorers

import (
	"fmt"
	"math"

	"github.com/attnzoo/attnzoo/internal/gx"
)

// Cosine scores by cosine similarity times a sharpness γ,
//
//	s_i = γ · qᵀ k_i / (‖q‖ ‖k_i‖)
//
// as in Graves et al.'s (2014) content addressing, where γ (their key
// strength β) sharpens the otherwise flat [-1, 1] scores. γ is the setting
// "sharpness": fixed (default 1), or, with Config.Learn, the initial value
// (default 5) of the learned parameter "sharpness" of shape [1]. The keys are normalised once per source
// sequence. Needs Dq = Dk.
type Cosine struct {
	core
	Gamma *gx.Param // learned sharpness, or nil
	gamma float64   // the fixed sharpness
}

var _ Scorer = (*Cosine)(nil)

// cosineEps keeps the norm of a zero vector finite: ‖x‖ = max(√Σx², ε).
const cosineEps = 1e-12

func init() {
	Register("cosine", func(c Config) (Scorer, error) {
		if err := needSame("cosine", c); err != nil {
			return nil, err
		}
		s := &Cosine{core: core{name: "cosine", cfg: c}, gamma: c.Settings["sharpness"]}
		if c.Learn {
			s.Gamma = s.param("sharpness", 1)
			s.Gamma.SetAt(0, s.gamma)
		}
		return s, nil
	}, Setting{
		Name: "sharpness", Usage: "cosine: the sharpness γ (fixed; or the initial value of the learned one in a model, default 5)",
		Default: 1, LearnDefault: 5, Min: math.Inf(-1),
		FromParams: func(p map[string]any) (float64, bool) {
			g, ok := p["sharpness"]
			if a, isArr := g.([]any); isArr && len(a) == 1 {
				g = a[0]
			}
			x, isNum := number(g)
			return x, ok && isNum
		},
	})
}

func (s *Cosine) Formula() string {
	if s.Gamma != nil {
		return "γ · qᵀk_i / (‖q‖ ‖k_i‖), γ learned (needs Dq = Dk)"
	}
	return fmt.Sprintf("γ · qᵀk_i / (‖q‖ ‖k_i‖), γ = %g (needs Dq = Dk)", s.gamma)
}

// ProjectKeys returns the unit-length keys.
func (s *Cosine) ProjectKeys(g *gx.Graph, keys *gx.Node) *gx.Node {
	if !s.checkKeys(g, keys) {
		return nil
	}
	return g.L2Normalize(keys, cosineEps)
}

// ScoreProjected returns γ times the cosine of q with each key.
func (s *Cosine) ScoreProjected(g *gx.Graph, q, unit *gx.Node) *gx.Node {
	if !s.checkStep(g, q, unit) {
		return nil
	}
	qn := g.L2Normalize(q, cosineEps)
	if s.Gamma == nil {
		return g.BMV(unit, qn, s.gamma)
	}
	return g.ScaleBy(g.BMV(unit, qn, 1), g.Bind(s.Gamma))
}

// Cost: the sharpness, one value.
func (Cosine) Cost(CostSizes) Cost { return Cost{Params: 1} }
