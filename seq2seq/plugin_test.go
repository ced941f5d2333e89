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
