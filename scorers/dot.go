package scorers

import "github.com/attnzoo/attnzoo/internal/gx"

// Dot is Luong et al.'s (2015) dot score, s_i = qᵀ k_i. It has no
// parameters and needs Dq = Dk.
type Dot struct{ core }

var _ Scorer = (*Dot)(nil)

func init() {
	Register("dot", func(c Config) (Scorer, error) {
		if err := needSame("dot", c); err != nil {
			return nil, err
		}
		return &Dot{core{name: "dot", cfg: c}}, nil
	})
}

func (d *Dot) Formula() string { return "qᵀ k_i (needs Dq = Dk)" }

// ProjectKeys returns the keys themselves.
func (d *Dot) ProjectKeys(g *gx.Graph, keys *gx.Node) *gx.Node { return d.sameKeys(g, keys) }

// ScoreProjected returns qᵀ k_i for every key.
func (d *Dot) ScoreProjected(g *gx.Graph, q, keys *gx.Node) *gx.Node {
	return g.Score(d.ScoreParts(g, q, keys))
}

// ScoreParts is the dot score of the keys and q (Fusable).
func (d *Dot) ScoreParts(g *gx.Graph, q, keys *gx.Node) gx.Scoring {
	if !d.checkStep(g, q, keys) {
		return gx.Scoring{}
	}
	return gx.DotScoring(keys, q, 1) // [B,S]
}

// Cost: none of its own.
func (Dot) Cost(CostSizes) Cost { return Cost{} }
