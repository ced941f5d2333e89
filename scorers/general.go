package scorers

import (
	"github.com/attnzoo/attnzoo/initializers"
	"github.com/attnzoo/attnzoo/internal/gx"
)

// General is Luong et al.'s (2015) "general" (bilinear) score,
// s_i = qᵀ W k_i with W of shape Dq×Dk. W k_i is computed once per source
// sequence.
type General struct {
	core
	W *gx.Param // [Dq, Dk]
}

var _ Scorer = (*General)(nil)

func init() {
	Register("general", func(c Config) (Scorer, error) {
		s := &General{core: core{name: "general", cfg: c}}
		s.W = s.param("W", c.Query, c.Key)
		s.draw(s.W, initializers.Linear(c.Key, c.Query)) // qᵀ(W k): W maps the key
		return s, nil
	})
	RegisterAlias("luong", "general")
	RegisterAlias("bilinear", "general")
}

func (s *General) Formula() string { return "qᵀ W k_i, W: Dq×Dk" }

// ProjectKeys returns W k_i for every key: [B, S, Dq].
func (s *General) ProjectKeys(g *gx.Graph, keys *gx.Node) *gx.Node { return s.linearKeys(g, keys, s.W) }

// ScoreProjected returns qᵀ (W k_i) for every key.
func (s *General) ScoreProjected(g *gx.Graph, q, wk *gx.Node) *gx.Node {
	return g.Score(s.ScoreParts(g, q, wk))
}

// ScoreParts is the dot score of W k_i and q (Fusable).
func (s *General) ScoreParts(g *gx.Graph, q, wk *gx.Node) gx.Scoring {
	if !s.checkStep(g, q, wk) {
		return gx.Scoring{}
	}
	return gx.DotScoring(wk, q, 1) // [B,S]
}

// Cost: W [H, H], and the keys projected through it [B, S, H].
func (General) Cost(s CostSizes) Cost {
	return Cost{Params: s.Hidden * s.Hidden, KeySide: s.Batch * s.S * s.Hidden}
}
