package scorers

import (
	"fmt"
	"math"

	"github.com/attnzoo/attnzoo/internal/gx"
)

// ScaledDot is Vaswani et al.'s (2017) scaled dot product,
// s_i = qᵀ k_i / √Dk: for q and k with independent unit-variance
// components the dot product has variance Dk, and the scaling brings it
// back to 1 (their footnote 4). No parameters; needs Dq = Dk.
type ScaledDot struct {
	core
	scale float64
}

var _ Scorer = (*ScaledDot)(nil)

func init() {
	Register("scaled-dot", func(c Config) (Scorer, error) {
		if err := needSame("scaled-dot", c); err != nil {
			return nil, err
		}
		return &ScaledDot{core{name: "scaled-dot", cfg: c}, 1 / math.Sqrt(float64(c.Key))}, nil
	})
}

func (d *ScaledDot) Formula() string {
	return fmt.Sprintf("qᵀ k_i / √Dk (needs Dq = Dk)")
}

// ProjectKeys returns the keys themselves.
func (d *ScaledDot) ProjectKeys(g *gx.Graph, keys *gx.Node) *gx.Node { return d.sameKeys(g, keys) }

// ScoreProjected returns qᵀ k_i / √Dk for every key.
func (d *ScaledDot) ScoreProjected(g *gx.Graph, q, keys *gx.Node) *gx.Node {
	return g.Score(d.ScoreParts(g, q, keys))
}

// ScoreParts is the dot score of the keys and q scaled by 1/√Dk (Fusable).
func (d *ScaledDot) ScoreParts(g *gx.Graph, q, keys *gx.Node) gx.Scoring {
	if !d.checkStep(g, q, keys) {
		return gx.Scoring{}
	}
	return gx.DotScoring(keys, q, d.scale) // [B,S]
}

// Cost: none of its own.
func (ScaledDot) Cost(CostSizes) Cost { return Cost{} }
