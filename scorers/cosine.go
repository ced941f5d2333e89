package scorers

import (
	"fmt"

	"github.com/attnzoo/attnzoo/internal/gx"
)

// Cosine scores by cosine similarity times a sharpness γ,
//
//	s_i = γ · qᵀ k_i / (‖q‖ ‖k_i‖)
//
// as in Graves et al.'s (2014) content addressing, where γ (their key
// strength β) sharpens the otherwise flat [-1, 1] scores. γ is fixed
// (Config.Sharpness) or learned (Config.LearnSharpness, the parameter
// "sharpness" of shape [1]). The keys are normalised once per source
// sequence. Needs Dq = Dk.
type Cosine struct {
	core
	Gamma *gx.Param // learned sharpness, or nil
}

var _ Scorer = (*Cosine)(nil)
var _ KeyProjector = (*Cosine)(nil)

// cosineEps keeps the norm of a zero vector finite: ‖x‖ = max(√Σx², ε).
const cosineEps = 1e-12

func init() {
	Register("cosine", func(c Config) (Scorer, error) {
		if err := needSame("cosine", c); err != nil {
			return nil, err
		}
		s := &Cosine{core: core{name: "cosine", cfg: c}}
		if c.LearnSharpness {
			s.Gamma = s.param("sharpness", 1)
			s.Gamma.SetAt(0, c.Sharpness)
		}
		return s, nil
	})
}

func (s *Cosine) Formula() string {
	if s.Gamma != nil {
		return "γ · qᵀk_i / (‖q‖ ‖k_i‖), γ learned (needs Dq = Dk)"
	}
	return fmt.Sprintf("γ · qᵀk_i / (‖q‖ ‖k_i‖), γ = %g (needs Dq = Dk)", s.cfg.Sharpness)
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
	if !s.checkQuery(g, q) || !s.checkBatch(g, q, unit) {
		return nil
	}
	qn := g.L2Normalize(q, cosineEps)
	if s.Gamma == nil {
		return g.BMV(unit, qn, s.cfg.Sharpness)
	}
	return g.ScaleBy(g.BMV(unit, qn, 1), g.Bind(s.Gamma))
}

func (s *Cosine) Score(g *gx.Graph, q, keys *gx.Node) *gx.Node {
	return s.ScoreProjected(g, q, s.ProjectKeys(g, keys))
}
