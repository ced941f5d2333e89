package seq2seq

import (
	"fmt"

	"github.com/attnzoo/attnzoo/internal/gx"
)

// Region encoders attend over a fixed set of S region vectors instead of a
// token sequence — image patches or precomputed CNN features — the grid of
// annotation vectors of Show, Attend and Tell (Xu et al. 2015):
//
//	a_i = tanh(W_r r_i + b_r)            i = 1..S, r_i of size RegionSize
//
// `patches`, `features` and `cnn` share this graph; they differ in how r_i
// is made: non-overlapping image patches flattened, or rows of an .npy
// feature array, both prepared by the encoder from the task's sources
// (EncoderInfo.Prepare); or a convolutional stack trained with the model
// (cnn.go) over the image the encoder laid out. Every region is present
// (mask all ones), and the decoder starts from the mean annotation (Xu et
// al. §3.1.2):
// h_0 = tanh(W_init mean(a) + b_init), and c_0 = tanh(W_initc mean(a) + b_initc)
// for an LSTM — or, with init "zero", from zeros.
//
// EncodersReading(source.Images) and EncodersReading(source.Features) list them.

// NewRegionBatch makes a batch of B sources of S regions of size P each
// (regions[i] holds S·P values, region-major, as the patches and features
// encoders prepare them) with their targets (nil for decoding).
func NewRegionBatch(regions [][]float32, S, P int, tgt [][]int) (*Batch, error) {
	for i, r := range regions {
		if len(r) != S*P {
			return nil, fmt.Errorf("seq2seq: source %d has %d region values, want %d regions × %d", i, len(r), S, P)
		}
	}
	return NewValueBatch(regions, S, tgt)
}

// gate applies Show, Attend and Tell's gating scalar (§4.2.1):
// c_t ← β_t c_t, β_t = σ(w_β · s_{t−1} + b_β), one scalar per row.
func (m *Model) gate(g *gx.Graph, prev, ctx *gx.Node) *gx.Node {
	if m.betaW == nil || ctx == nil {
		return ctx
	}
	beta := g.Sigmoid(g.AddBias(g.Linear(prev, g.Bind(m.betaW), 0), g.Bind(m.betaB))) // [B, 1]
	return g.TakeStep(g.Outer(beta, ctx, 1), 0)                                       // [B, H]
}

// attentionPenalty is Show, Attend and Tell's doubly stochastic
// regularisation (§4.2.1), λ Σ_i (1 − Σ_t α_ti)², averaged over the batch:
// it asks every region to receive, over the whole caption, a total weight
// of about 1. Only the caption's real steps count (attMask[t] is 1 where
// step t is within the target, per region).
type attentionPenalty struct {
	masks []*gx.Node // T × [B, S]
	ones  *gx.Node   // [B, S]
	coef  *gx.Node   // [B, S]: λ/B on real regions
}

func (m *Model) penaltyOn(g *gx.Graph, weights []*gx.Node, B, S int) (*attentionPenalty, *gx.Node) {
	if m.Cfg.Lambda <= 0 {
		return nil, nil
	}
	p := &attentionPenalty{ones: g.Input("dsr.ones", B, S), coef: g.Input("dsr.coef", B, S)}
	var sum *gx.Node
	for t, w := range weights {
		mk := g.Input(fmt.Sprintf("dsr.mask.%d", t), B, S)
		p.masks = append(p.masks, mk)
		if sum == nil {
			sum = g.Mul(w, mk)
		} else {
			sum = g.Sum(sum, g.Mul(w, mk))
		}
	}
	r := g.Sub(p.ones, sum)
	return p, g.DotAll(g.Mul(r, r), p.coef)
}

func (p *attentionPenalty) set(b *Batch, lambda float64) error {
	if p == nil {
		return nil
	}
	B, S := b.Size(), b.SrcLen()
	ones, coef := make([]float64, B*S), make([]float64, B*S)
	for i := 0; i < B; i++ {
		for s := 0; s < b.srcLen[i]; s++ {
			ones[i*S+s] = 1
			coef[i*S+s] = lambda / float64(B)
		}
	}
	if err := gx.Set(p.ones, ones); err != nil {
		return err
	}
	if err := gx.Set(p.coef, coef); err != nil {
		return err
	}
	mk := make([]float64, B*S)
	for t, n := range p.masks {
		for i := 0; i < B; i++ {
			v := 0.0
			if t < b.tgtLen[i] {
				v = 1
			}
			for s := 0; s < S; s++ {
				mk[i*S+s] = v
			}
		}
		if err := gx.Set(n, mk); err != nil {
			return err
		}
	}
	return nil
}
