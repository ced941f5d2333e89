package scorers

import (
	"github.com/attnzoo/attnzoo/initializers"
	"github.com/attnzoo/attnzoo/internal/gx"
)

// Concat is Bahdanau et al.'s (2015) additive score (Luong's "concat"),
//
//	s_i = vᵀ tanh(W_q q + W_k k_i + b)
//
// with W_q: A×Dq, W_k: A×Dk, v and b of size A. W_k k_i is computed once per
// source sequence; each decoder step adds W_q q and runs the fused
// tanh-and-project op.
type Concat struct {
	core
	Wq, Wk, V, B *gx.Param
}

var _ Scorer = (*Concat)(nil)

func init() {
	Register("concat", func(c Config) (Scorer, error) {
		s := &Concat{core: core{name: "concat", cfg: c}}
		A := attentionSize(c)
		s.Wq = s.param("W_q", A, c.Query)
		s.Wk = s.param("W_k", A, c.Key)
		s.V = s.param("v", A)
		s.B = s.param("b", A)
		s.draw(s.Wq, initializers.Linear(c.Query, A))
		s.draw(s.Wk, initializers.Linear(c.Key, A))
		s.draw(s.V, initializers.Linear(A, 1))         // vᵀ: a map from A units to one
		s.draw(s.B, initializers.LinearBias(c.Key, A)) // W_k's bias
		return s, nil
	}, Setting{
		Name: "attention", Usage: "concat: the size A of W_q q + W_k k_i (0 = the key size Dk)", Int: true,
		FromParams: lengthOf("v", "W_q"),
	})
	RegisterAlias("bahdanau", "concat")
	RegisterAlias("additive", "concat")
	RegisterAlias("mlp", "concat")
}

func (s *Concat) Formula() string {
	return "vᵀ tanh(W_q q + W_k k_i + b), W_q: A×Dq, W_k: A×Dk, v, b: A"
}

// ProjectKeys returns W_k k_i for every key: [B, S, A].
func (s *Concat) ProjectKeys(g *gx.Graph, keys *gx.Node) *gx.Node { return s.linearKeys(g, keys, s.Wk) }

// ScoreProjected returns vᵀ tanh(W_q q + W_k k_i + b) for every key.
func (s *Concat) ScoreProjected(g *gx.Graph, q, wk *gx.Node) *gx.Node {
	return g.Score(s.ScoreParts(g, q, wk))
}

// ScoreParts is the additive score of W_k k_i, W_q q, b and v (Fusable).
func (s *Concat) ScoreParts(g *gx.Graph, q, wk *gx.Node) gx.Scoring {
	if !s.checkStep(g, q, wk) {
		return gx.Scoring{}
	}
	u := g.Linear(q, g.Bind(s.Wq), 0) // [B,A]
	return gx.AdditiveScoring(wk, u, g.Bind(s.B), g.Bind(s.V))
}

// Cost: W_q, W_k [A, H], b and v [A]; the projected keys [B, S, A]; per
// position and step the sum and its tanh (2A).
func (Concat) Cost(s CostSizes) Cost {
	A, H, B, S := s.Attention, s.Hidden, s.Batch, s.S
	return Cost{Params: 2*A*H + 2*A, KeySide: B * S * A, PerPos: 2 * A, Tensors: []Tensor{
		{"the concat scorer's tanh(W_q q + W_k k) ([train] batch × source length × [model] attention)", B * S * A},
		{"the concat scorer's W_q and W_k ([model] attention × [model] hidden)", A * H},
	}}
}
