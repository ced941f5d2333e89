package seq2seq

import (
	"fmt"

	"github.com/attnzoo/attnzoo/internal/gx"
)

// forcedGraph is the loss's teacher-forced graph (trainGraphOn, without
// dropout) with no gradients and every step's attention weights watched.
func (m *Model) buildForced(a *gx.Arena, B, S, T int) (*trainGraph, error) {
	return buildIn(m, a, func(g *gx.Graph) (*trainGraph, error) {
		tg := m.trainGraphOn(g, B, S, T)
		for t, w := range tg.weights {
			tg.weights[t] = g.Watch(w)
		}
		mach, err := m.compile(g, "teacher-forced attention")
		if err != nil {
			return nil, err
		}
		tg.mach = mach
		return tg, nil
	})
}

// ForcedAttention runs the graph the loss runs — teacher forcing on b's
// targets, no dropout — and returns its attention: out[i][t] is the
// weights over source i's srcLen[i] positions at step t, for t up to and
// including the </s> step (len(target)+1 rows). Step t reads TgtIn[t]
// (<s>, then y_{t−1}) and predicts TgtOut[t] = y_t, so row t is the
// attention behind the prediction of target token t (0-based; the last row
// is </s>'s). This is Luong et al. (2015, §5.4)'s forced decoding of the
// reference: the alignment of the model on the reference, whatever it
// would generate itself.
func (m *Model) ForcedAttention(b *Batch, cache *GraphCache) ([][][]float64, error) {
	if b.TgtLen() == 0 {
		return nil, fmt.Errorf("seq2seq: forced attention needs the batch's targets")
	}
	if err := m.checkBatch(b); err != nil {
		return nil, err
	}
	save := m.Cfg.Dropout
	m.Cfg.Dropout = 0
	defer func() { m.Cfg.Dropout = save }()
	B, S, T := b.Size(), b.SrcLen(), b.TgtLen()
	tg, err := cached(cache, cache.forced, shape{B, S, T, false}, func(tg *trainGraph) *gx.Machine { return tg.mach },
		func() (*trainGraph, error) { return m.buildForced(cache.arena, B, S, T) })
	if err != nil {
		return nil, err
	}
	if err := tg.enc.set(b); err != nil {
		return nil, err
	}
	if err := tg.setTargets(b, m.Cfg.LabelSmoothing); err != nil {
		return nil, err
	}
	if err := tg.penalty.set(b, m.Cfg.Lambda); err != nil {
		return nil, err
	}
	if err := tg.mach.Run(); err != nil {
		return nil, fmt.Errorf("seq2seq: teacher-forced attention: %w", err)
	}
	out := make([][][]float64, B)
	for t, w := range tg.weights {
		v, err := tg.g.View(w)
		if err != nil {
			return nil, err
		}
		for i := range out {
			if t < b.tgtLen[i] {
				out[i] = append(out[i], row(v, i*S, b.srcLen[i], nil))
			}
		}
	}
	return out, nil
}
