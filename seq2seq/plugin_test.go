package seq2seq

import (
	"fmt"

	"github.com/attnzoo/attnzoo/internal/gx"
	"github.com/attnzoo/attnzoo/source"
)

// bagEncoder is an encoder registered from a test file, as a new encoder
// is registered from its own file: each token's annotation is its own
// embedding, a_t = tanh(E x_t), with no final state (the decoder starts
// from the mean annotation). TestModelGradients runs every token encoder,
// so it checks this one's gradients too.
type bagEncoder struct{ emb *gx.Param }

type bagInputs struct{ ids []*gx.Node }

func init() {
	RegisterEncoder("test-bag", EncoderInfo{Reads: source.Tokens, New: func(b *Builder) (Encoder, error) {
		e := &bagEncoder{emb: b.Param("src.emb", b.Cfg.SrcVocab, b.Cfg.Hidden)}
		e.emb.Uniform(b.Rand, 0.1)
		return e, nil
	}})
}

func (e *bagEncoder) Inputs(g *gx.Graph, B, S int) EncoderInputs {
	in := &bagInputs{}
	for t := 0; t < S; t++ {
		in.ids = append(in.ids, g.Input(fmt.Sprintf("src.%d", t), B))
	}
	return in
}

func (in *bagInputs) Set(b *Batch) error {
	for t, n := range in.ids {
		if err := gx.Fill(n, func(i int) float64 { return float64(b.Src[i][t]) }); err != nil {
			return err
		}
	}
	return nil
}

func (e *bagEncoder) Encode(g *gx.Graph, inputs EncoderInputs, _ *gx.Node, _ int) (annot, final *gx.Node) {
	E := g.Bind(e.emb)
	var as []*gx.Node
	for _, ids := range inputs.(*bagInputs).ids {
		as = append(as, g.Tanh(g.Embed(E, ids)))
	}
	return g.Stack(as...), nil
}

// gainBag is an encoder with a setting of its own, registered from this
// test file as a new encoder is from its own file: bag_gain scales each
// token's embedding, a_t = tanh(bag_gain · E x_t), with no final state.
// TestModelGradients runs every token encoder, so it checks this one's
// gradients (at the default gain); TestPluginEncoderSetting reads the
// setting back and checks the gradients at another value.
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

func init() {
	RegisterEncoder("test-gain-bag", EncoderInfo{
		Reads:    source.Tokens,
		Settings: []Setting{{Name: "bag_gain", Usage: "test-gain-bag: the factor on each embedding", Min: 0, Default: []float64{1}}},
		New: func(b *Builder) (Encoder, error) {
			e := &gainBag{emb: b.Param("src.emb", b.Cfg.SrcVocab, b.Cfg.Hidden), gain: b.Cfg.Setting("bag_gain")[0], hidden: b.Cfg.Hidden}
			e.emb.Uniform(b.Rand, 0.1)
			return e, nil
		},
	})
}

func (e *gainBag) Inputs(g *gx.Graph, B, S int) EncoderInputs {
	in := &gainBagInputs{gain: g.Input("bag.gain", B, e.hidden), g: e.gain}
	for t := 0; t < S; t++ {
		in.ids = append(in.ids, g.Input(fmt.Sprintf("src.%d", t), B))
	}
	return in
}

func (in *gainBagInputs) Set(b *Batch) error {
	if err := gx.Fill(in.gain, func(int) float64 { return in.g }); err != nil {
		return err
	}
	for t, n := range in.ids {
		if err := gx.Fill(n, func(i int) float64 { return float64(b.Src[i][t]) }); err != nil {
			return err
		}
	}
	return nil
}

func (e *gainBag) Encode(g *gx.Graph, inputs EncoderInputs, _ *gx.Node, _ int) (annot, final *gx.Node) {
	in := inputs.(*gainBagInputs)
	E := g.Bind(e.emb)
	var as []*gx.Node
	for _, ids := range in.ids {
		as = append(as, g.Tanh(g.Mul(g.Embed(E, ids), in.gain)))
	}
	return g.Stack(as...), nil
}
