// Package plugintest holds the toy encoders that tests in seq2seq,
// experiments and cmd/attnzoo register from their own _test.go files, as a
// new encoder is registered from its own file, to show that nothing else
// needs touching. No production code imports it.
package plugintest

import (
	"fmt"

	"github.com/attnzoo/attnzoo/internal/gx"
	"github.com/attnzoo/attnzoo/seq2seq"
	"github.com/attnzoo/attnzoo/source"
)

// Bag is the bag encoder: each token's annotation is its own embedding,
// a_t = tanh(E x_t), with no final state (the decoder starts from the mean
// annotation).
func Bag() seq2seq.EncoderInfo {
	return seq2seq.EncoderInfo{Reads: source.Tokens, New: func(b *seq2seq.Builder) (seq2seq.Encoder, error) {
		e := &bagEncoder{emb: b.Param("src.emb", b.Cfg.SrcVocab, b.Cfg.Hidden)}
		e.emb.Uniform(b.Rand, 0.1)
		return e, nil
	}}
}

// GainBag is an encoder with a setting of its own, registered under name:
// bag_gain (default 1, at least 0) scales each token's embedding,
// a_t = tanh(bag_gain · E x_t), with no final state.
func GainBag(name string) seq2seq.EncoderInfo {
	return seq2seq.EncoderInfo{
		Reads:    source.Tokens,
		Settings: []seq2seq.Setting{{Name: "bag_gain", Usage: name + ": the factor on each embedding", Min: 0, Default: []float64{1}}},
		New: func(b *seq2seq.Builder) (seq2seq.Encoder, error) {
			e := &gainBag{emb: b.Param("src.emb", b.Cfg.SrcVocab, b.Cfg.Hidden), gain: b.Cfg.Setting("bag_gain")[0], hidden: b.Cfg.Hidden}
			e.emb.Uniform(b.Rand, 0.1)
			return e, nil
		},
	}
}

type bagEncoder struct{ emb *gx.Param }

type bagInputs struct{ ids []*gx.Node }

// tokenInputs is one [B] input of token ids per source position.
func tokenInputs(g *gx.Graph, B, S int) []*gx.Node {
	var ids []*gx.Node
	for t := 0; t < S; t++ {
		ids = append(ids, g.Input(fmt.Sprintf("src.%d", t), B))
	}
	return ids
}

// setTokens fills the inputs of tokenInputs from a batch's token ids.
func setTokens(ids []*gx.Node, b *seq2seq.Batch) error {
	for t, n := range ids {
		if err := gx.Fill(n, func(i int) float64 { return float64(b.Src[i][t]) }); err != nil {
			return err
		}
	}
	return nil
}

func (e *bagEncoder) Inputs(g *gx.Graph, B, S int) seq2seq.EncoderInputs {
	return &bagInputs{ids: tokenInputs(g, B, S)}
}

func (in *bagInputs) Set(b *seq2seq.Batch) error { return setTokens(in.ids, b) }

func (e *bagEncoder) Encode(g *gx.Graph, inputs seq2seq.EncoderInputs, _ *gx.Node, _ int) (annot, final *gx.Node) {
	E := g.Bind(e.emb)
	var as []*gx.Node
	for _, ids := range inputs.(*bagInputs).ids {
		as = append(as, g.Tanh(g.Embed(E, ids)))
	}
	return g.Stack(as...), nil
}

type gainBag struct {
	emb    *gx.Param
	gain   float64
	hidden int
}

type gainBagInputs struct {
	ids  []*gx.Node
	gain *gx.Node // [B, hidden], every entry bag_gain
	g    float64
}

func (e *gainBag) Inputs(g *gx.Graph, B, S int) seq2seq.EncoderInputs {
	return &gainBagInputs{gain: g.Input("bag.gain", B, e.hidden), g: e.gain, ids: tokenInputs(g, B, S)}
}

func (in *gainBagInputs) Set(b *seq2seq.Batch) error {
	if err := gx.Fill(in.gain, func(int) float64 { return in.g }); err != nil {
		return err
	}
	return setTokens(in.ids, b)
}

func (e *gainBag) Encode(g *gx.Graph, inputs seq2seq.EncoderInputs, _ *gx.Node, _ int) (annot, final *gx.Node) {
	in := inputs.(*gainBagInputs)
	E := g.Bind(e.emb)
	var as []*gx.Node
	for _, ids := range in.ids {
		as = append(as, g.Tanh(g.Mul(g.Embed(E, ids), in.gain)))
	}
	return g.Stack(as...), nil
}
