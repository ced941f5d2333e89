package scorers

import "github.com/attnzoo/attnzoo/internal/gx"

// Multiplicative is Britz et al.'s (2017, "Massive Exploration of Neural
// Machine Translation Architectures", the attention mechanism experiments)
// multiplicative score, the unscaled dot product of learned projections of
// the query and the key into an attention space of size A:
//
//	s_i = (W_q q)ᵀ (W_k k_i),   W_q: A×Dq, W_k: A×Dk
//
// They compare it with the additive score (concat) at each attention
// dimensionality A. Unlike projected-dot it never divides by √A, so its
// scores grow with A as dot's grow with Dk (Vaswani et al.'s footnote 4);
// it equals projected-dot with one head times √A. As a bilinear form it is
// Luong's general score qᵀ W k_i with W = W_qᵀ W_k of rank ≤ A. (Their
// released code, google/seq2seq's AttentionLayerDot, projects with
// fully-connected layers whose biases start at zero; the formula here has
// none.) W_k k_i is computed once per source sequence.
type Multiplicative struct {
	core
	Wq, Wk *gx.Param
}

var _ Scorer = (*Multiplicative)(nil)

func init() {
	Register("multiplicative", func(c Config) (Scorer, error) {
		s := &Multiplicative{core: core{name: "multiplicative", cfg: c}}
		s.Wq, s.Wk = s.projections(attentionSize(c))
		return s, nil
	}, Setting{
		Name: "attention", Usage: "multiplicative: the size A of W_q q and W_k k_i (0 = the key size Dk)", Int: true,
		FromParams: lengthOf("W_q", "W_k"),
	})
}

func (s *Multiplicative) Formula() string {
	return "(W_q q)ᵀ(W_k k_i), unscaled; W_q: A×Dq, W_k: A×Dk"
}

// ProjectKeys returns W_k k_i for every key: [B, S, A].
func (s *Multiplicative) ProjectKeys(g *gx.Graph, keys *gx.Node) *gx.Node {
	return s.linearKeys(g, keys, s.Wk)
}

// ScoreProjected returns (W_q q)ᵀ(W_k k_i) for every key.
func (s *Multiplicative) ScoreProjected(g *gx.Graph, q, wk *gx.Node) *gx.Node {
	return g.Score(s.ScoreParts(g, q, wk))
}

// ScoreParts is the dot score of W_k k_i and W_q q (Fusable).
func (s *Multiplicative) ScoreParts(g *gx.Graph, q, wk *gx.Node) gx.Scoring {
	if !s.checkStep(g, q, wk) {
		return gx.Scoring{}
	}
	return gx.DotScoring(wk, g.Linear(q, g.Bind(s.Wq), 0), 1) // [B,S]
}

// Cost: W_q, W_k [A, H]; the projected keys [B, S, A].
func (Multiplicative) Cost(s CostSizes) Cost { return projectionsCost("multiplicative", s) }

// projectionsCost is the memory of a scorer of W_q and W_k [A, H].
func projectionsCost(name string, s CostSizes) Cost {
	A, H := s.Attention, s.Hidden
	return Cost{Params: 2 * A * H, KeySide: s.Batch * s.S * A,
		Tensors: []Tensor{{"the " + name + " scorer's W_q and W_k ([model] attention × [model] hidden)", A * H}}}
}
