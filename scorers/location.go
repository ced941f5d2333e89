package scorers

import (
	"fmt"

	"github.com/attnzoo/attnzoo/initializers"
	"github.com/attnzoo/attnzoo/internal/gx"
)

// Location is Luong et al.'s (2015) location-based score, a_t = W_a h_t:
// the scores depend only on the query, one per source position,
//
//	s_i = (W q)_i,  W: MaxLen×Dq
//
// so a source of length S uses the first S rows of W. It needs the longest
// source length up front: the setting "max_len", by default Config.MaxLen
// (a model's longest source); the keys only set S.
type Location struct {
	core
	W *gx.Param // [MaxLen, Dq]
}

var _ Scorer = (*Location)(nil)

func init() {
	Register("location", func(c Config) (Scorer, error) {
		if n := int(c.Settings["max_len"]); n > 0 {
			c.MaxLen = n
		}
		if c.MaxLen <= 0 {
			return nil, fmt.Errorf("scorers: location needs a maximum source length > 0, got %d", c.MaxLen)
		}
		s := &Location{core: core{name: "location", cfg: c}}
		s.W = s.param("W", c.MaxLen, c.Query)
		s.draw(s.W, initializers.Linear(c.Query, c.MaxLen))
		return s, nil
	}, Setting{
		Name: "max_len", Usage: "location: the longest source it can score (0 = the longest source seen: the task's, or the number of keys)", Int: true,
		FromParams: lengthOf("W"),
	})
}

func (s *Location) Formula() string {
	return "(W q)_i, W: MaxLen×Dq (scores depend on positions only)"
}

// MaxLen is the longest source the scorer can score.
func (s *Location) MaxLen() int { return s.cfg.MaxLen }

// PositionBased reports that scores follow key positions, not contents.
func (s *Location) PositionBased() bool { return true }

// ProjectKeys returns the keys: only their number matters.
func (s *Location) ProjectKeys(g *gx.Graph, keys *gx.Node) *gx.Node {
	if !s.checkKeys(g, keys) {
		return nil
	}
	if S := keys.Shape()[1]; S > s.cfg.MaxLen {
		g.Fail(s.errorf("source length %d exceeds the maximum %d it was built for", S, s.cfg.MaxLen))
		return nil
	}
	return keys
}

// ScoreProjected returns the first S entries of W q.
func (s *Location) ScoreProjected(g *gx.Graph, q, keys *gx.Node) *gx.Node {
	if !s.checkStep(g, q, keys) {
		return nil
	}
	return g.Linear(q, g.Bind(s.W), keys.Shape()[1]) // [B,S]
}

// Cost: W [S, H].
func (Location) Cost(s CostSizes) Cost { return Cost{Params: s.S * s.Hidden} }
