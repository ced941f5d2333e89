package scorers

import (
	"fmt"
	"math"

	"github.com/attnzoo/attnzoo/internal/gx"
)

// ProjectedDot is the Transformer's scaled dot product of learned
// projections (Vaswani et al. 2017, §3.2.1–3.2.2), with h heads:
//
//	s_i^k = (W_q^k q)ᵀ (W_k^k k_i) / √a,   a = A/h,  k = 1…h
//
// W_q^k: a×Dq and W_k^k: a×Dk are head k's own weights, held as the rows
// [k·a, (k+1)·a) of W_q: A×Dq and W_k: A×Dk. Unlike plain scaled-dot, the
// projections can rescale what they read, so the √a does not pin the
// scores near zero when the states are small. W_k k_i is computed once per
// source sequence. With h > 1 the scorer returns one row of scores per
// batch row and head (Heads); attention normalises each head on its own and
// averages the heads' weights (Memory.Attend).
type ProjectedDot struct {
	core
	Wq, Wk *gx.Param
	heads  int
	scale  float64 // 1/√a
}

var _ Scorer = (*ProjectedDot)(nil)
var _ MultiHead = (*ProjectedDot)(nil)

func init() {
	Register("projected-dot", func(c Config) (Scorer, error) {
		A, h := attentionSize(c), int(c.Settings["heads"])
		if A%h != 0 {
			return nil, fmt.Errorf("scorers: projected-dot: attention %d is not a multiple of heads %d (each head projects to attention/heads)", A, h)
		}
		s := &ProjectedDot{core: core{name: "projected-dot", cfg: c}, heads: h, scale: 1 / math.Sqrt(float64(A/h))}
		s.Wq, s.Wk = s.projections(A)
		return s, nil
	}, Setting{
		Name: "attention", Usage: "projected-dot: the size A of W_q q and W_k k_i, all heads together (0 = the key size Dk)", Int: true,
		FromParams: lengthOf("W_q"),
	}, Setting{
		Name: "heads", Usage: "projected-dot: the number of heads h, each projecting to attention/h", Default: 1, Int: true, Min: 1,
	})
	RegisterAlias("transformer", "projected-dot")
}

func (s *ProjectedDot) Formula() string {
	return fmt.Sprintf("(W_q^k q)ᵀ(W_k^k k_i)/√a for each of h = %d heads, a = A/h; W_q: A×Dq, W_k: A×Dk", s.heads)
}

// Heads is h.
func (s *ProjectedDot) Heads() int { return s.heads }

// ProjectKeys returns W_k k_i for every key: [B, S, A], every head's block.
func (s *ProjectedDot) ProjectKeys(g *gx.Graph, keys *gx.Node) *gx.Node {
	return s.linearKeys(g, keys, s.Wk)
}

// ScoreProjected returns each head's (W_q^k q)ᵀ(W_k^k k_i)/√a: [B·h, S].
func (s *ProjectedDot) ScoreProjected(g *gx.Graph, q, wk *gx.Node) *gx.Node {
	return g.Score(s.ScoreParts(g, q, wk))
}

// ScoreParts is the dot score of h heads of W_k k_i and W_q q, each
// scaled by 1/√a (Fusable).
func (s *ProjectedDot) ScoreParts(g *gx.Graph, q, wk *gx.Node) gx.Scoring {
	if !s.checkQuery(g, q) || !s.checkBatch(g, q, wk) {
		return gx.Scoring{}
	}
	return gx.DotScoringHeads(wk, g.Linear(q, g.Bind(s.Wq), 0), s.heads, s.scale)
}

// Cost: W_q, W_k [A, H]; the projected keys [B, S, A].
func (ProjectedDot) Cost(s CostSizes) Cost { return projectionsCost("projected-dot", s) }
