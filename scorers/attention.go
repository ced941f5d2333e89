package scorers

import "github.com/attnzoo/attnzoo/internal/gx"

// Memory is what attention keeps per source sequence: the keys (projected
// once by the scorer), the values and the mask.
type Memory struct {
	scorer            Scorer
	projected, values *gx.Node
	mask              *gx.Node
	headMask          *gx.Node // the mask once per head [B·h, S], made at the first Attend
}

// Prepare does a scorer's key-side work once for a batch of source
// sequences: keys [B, S, Dk], values [B, S, Dv] (nil means the keys), mask
// [B, S] (1 = present).
func Prepare(g *gx.Graph, s Scorer, keys, values, mask *gx.Node) *Memory {
	if values == nil {
		values = keys
	}
	m := &Memory{scorer: s, values: values, mask: mask}
	if g.Err() != nil || keys == nil || values == nil || mask == nil {
		g.Failf("scorers: %s: nil keys, values or mask", s.Name())
		return m
	}
	ks, vs, ms := keys.Shape(), values.Shape(), mask.Shape()
	if len(ks) != 3 || len(vs) != 3 || len(ms) != 2 || vs[0] != ks[0] || vs[1] != ks[1] || ms[0] != ks[0] || ms[1] != ks[1] {
		g.Failf("scorers: %s: keys %v, values %v and mask %v do not fit (want [B,S,Dk], [B,S,Dv], [B,S])", s.Name(), []int(ks), []int(vs), []int(ms))
		return m
	}
	m.projected = s.ProjectKeys(g, keys)
	return m
}

// Step is one attention step's result.
type Step struct {
	Query   *gx.Node // the query q [B, Dq] the scores were computed from
	Scores  *gx.Node // [B, S]; [B·h, S] for a scorer with h > 1 heads (MultiHead)
	Weights *gx.Node // [B, S]: the mean of the heads' weights
	Context *gx.Node // [B, Dv]
	// HeadWeights are each head's weights [B·h, S] (row b·h+k is head k of
	// batch row b) for a scorer with h > 1 heads; nil otherwise.
	HeadWeights *gx.Node
}

// Attend scores the query q [B, Dq] against the memory, normalises the
// scores over the unmasked keys and returns the context Σ_i w_i v_i. With
// the softmax, on a graph whose backend runs the fused attention
// (gx.Graph.FusesAttention), the three are one op (gx.Attention); else
// the unfused chain: the same values (on the cpu the same bits).
func (m *Memory) Attend(g *gx.Graph, q *gx.Node, norm Normalizer) Step {
	var st Step
	if g.Err() != nil {
		return st
	}
	st.Query = q
	h := HeadsOf(m.scorer)
	if sc, ok := m.fused(g, q, norm); ok {
		// one op: the score, the softmax and the context (gx.Attention)
		if g.Err() == nil {
			at := g.Attention(sc, m.mask, m.values)
			st.Scores, st.HeadWeights, st.Weights, st.Context = at.Scores, at.HeadWeights, at.Weights, at.Context
		}
		return st
	}
	st.Scores = m.scorer.ScoreProjected(g, q, m.projected)
	if st.Scores == nil {
		return st
	}
	if h > 1 {
		// w̄_i = (1/h) Σ_k norm(s^k)_i, each head over the unmasked keys
		if m.headMask == nil {
			m.headMask = g.RepeatRows(m.mask, h)
		}
		st.HeadWeights = norm(g, st.Scores, m.headMask)
		if st.HeadWeights == nil {
			return st
		}
		st.Weights = g.HeadMean(st.HeadWeights, h)
	} else {
		st.Weights = norm(g, st.Scores, m.mask)
	}
	if st.Weights == nil {
		return st
	}
	st.Context = g.WSum(st.Weights, m.values, 1)
	return st
}

// fused is the score as the fused op takes it (a Fusable scorer's parts,
// or the scores of one head computed first), where the graph's backend
// runs the op for it and the normaliser is the softmax.
func (m *Memory) fused(g *gx.Graph, q *gx.Node, norm Normalizer) (gx.Scoring, bool) {
	if !isSoftmax(norm) {
		return gx.Scoring{}, false
	}
	h := HeadsOf(m.scorer)
	f, ok := m.scorer.(Fusable)
	switch {
	case !g.FusesAttention(h):
		return gx.Scoring{}, false
	case ok:
		return f.ScoreParts(g, q, m.projected), true
	case h == 1:
		return gx.ScoresOf(m.scorer.ScoreProjected(g, q, m.projected)), true
	}
	return gx.Scoring{}, false
}

// NewMemory wraps keys already projected by the scorer (ProjectKeys'
// result), values and mask: the
// one-step decoding graph takes the projection computed by the encoder
// graph as an input.
func NewMemory(s Scorer, projected, values, mask *gx.Node) *Memory {
	return &Memory{scorer: s, projected: projected, values: values, mask: mask}
}
