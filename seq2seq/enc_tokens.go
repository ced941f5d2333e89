package seq2seq

import (
	"fmt"

	"github.com/attnzoo/attnzoo/cells"
	"github.com/attnzoo/attnzoo/initializers"
	"github.com/attnzoo/attnzoo/internal/gx"
	"github.com/attnzoo/attnzoo/source"
)

// The token encoders embed the source tokens and run the model's cell over
// them: "rnn" forwards (annotations h_1..h_S, final state h_S), "birnn"
// both ways with Hidden/2 units each (Bahdanau et al. 2015): annotation
// h_t = [→h_t; ←h_t], final state [→h_S; ←h_1]. Padding carries the state:
// h_t = h_{t−1} + m_t ⊙ (h'_t − h_{t−1}). A cell that runs a whole sequence
// in one op (cells.Sequencer) does so.
type tokenEncoder struct {
	emb       *gx.Param
	fwd, bwd  cells.Cell // bwd is nil for rnn
	hidden    int        // units per direction
	sequencer bool
}

func init() {
	for name, bi := range map[string]bool{"rnn": false, "birnn": true} {
		RegisterEncoder(name, EncoderInfo{
			Reads: source.Tokens, Final: true,
			Check: func(c Config) error {
				if bi && c.Hidden%2 != 0 {
					return fieldErr("hidden", "birnn gives each direction hidden/2 units, so hidden must be even, got %d", c.Hidden)
				}
				return nil
			},
			Cost: func(c Config, s CostSizes) Cost { return tokenCost(s, bi) },
			New:  func(b *Builder) (Encoder, error) { return newTokenEncoder(b, bi) },
		})
	}
}

// tokenCost: the source embedding [V_s, E] and the cells, and per
// training graph each direction's gates and states at every position.
func tokenCost(s CostSizes, bi bool) Cost {
	dirs, h := 1.0, s.Hidden
	if bi {
		dirs, h = 2, s.Hidden/2
	}
	var c Cost
	c.S = s.MaxSrc
	c.Params += s.SrcVocab*s.Embed + dirs*s.CellParams(s.Embed, h)
	c.largest("[model] embed × the source vocabulary (the source embedding)", s.SrcVocab*s.Embed)
	c.Activations = c.S * s.Batch * (dirs*(3*s.Gates+6)*h + s.Embed)
	return c
}

func newTokenEncoder(b *Builder, bi bool) (Encoder, error) {
	c := b.Cfg
	e := &tokenEncoder{hidden: c.Hidden}
	if bi {
		e.hidden = c.Hidden / 2
	}
	e.emb = b.Param("src.emb", c.SrcVocab, c.Embed)
	b.Draw(e.emb, initializers.Table)
	b.Later(func() (err error) {
		if e.fwd, err = b.Cell("enc.fwd.", []int{c.Embed}, e.hidden); err != nil {
			return err
		}
		_, e.sequencer = e.fwd.(cells.Sequencer)
		if bi {
			e.bwd, err = b.Cell("enc.bwd.", []int{c.Embed}, e.hidden)
		}
		return err
	})
	return e, nil
}

// tokenInputs are the token ids: S × [B] with the carry masks (a cell
// without a Sequencer), or [S·B] time-major (with one).
type tokenInputs struct {
	ids    []*gx.Node // S × [B]
	idsAll *gx.Node   // [S·B], row t·B+i
	carry  []*gx.Node // S × [B, hidden]: 1 where the token is real
	hidden int
}

func (e *tokenEncoder) Inputs(g *gx.Graph, B, S int) EncoderInputs {
	in := &tokenInputs{hidden: e.hidden}
	if e.sequencer {
		in.idsAll = g.Input("src.ids", S*B)
		return in
	}
	for t := 0; t < S; t++ {
		in.ids = append(in.ids, g.Input(fmt.Sprintf("src.%d", t), B))
		in.carry = append(in.carry, g.Input(fmt.Sprintf("src.carry.%d", t), B, e.hidden))
	}
	return in
}

func (in *tokenInputs) Set(b *Batch) error {
	B := b.Size()
	if in.idsAll != nil { // row t·B+i
		if err := gx.Fill(in.idsAll, func(r int) float64 { return float64(b.Src[r%B][r/B]) }); err != nil {
			return err
		}
	}
	for t := range in.ids {
		if err := gx.Fill(in.ids[t], func(i int) float64 { return float64(b.Src[i][t]) }); err != nil {
			return err
		}
		err := gx.Fill(in.carry[t], func(k int) float64 {
			if t < b.srcLen[k/in.hidden] {
				return 1
			}
			return 0
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func (e *tokenEncoder) Encode(g *gx.Graph, inputs EncoderInputs, mask *gx.Node, B int) (annot, final *gx.Node) {
	in := inputs.(*tokenInputs)
	if in.idsAll != nil {
		return e.encodeSequence(g, in, mask, B)
	}
	E := g.Bind(e.emb)
	embs := make([]*gx.Node, len(in.ids))
	for t, ids := range in.ids {
		embs[t] = g.Embed(E, ids) // [B, E]
	}
	fw, fst := runDir(g, e.fwd, embs, in.carry, B, false, "enc.fwd")
	if e.bwd == nil {
		return g.Stack(fw...), fst.H
	}
	bw, bst := runDir(g, e.bwd, embs, in.carry, B, true, "enc.bwd")
	return g.ConcatLast(g.Stack(fw...), g.Stack(bw...)), g.ConcatLast(fst.H, bst.H) // [B, S, H], [B, H]
}

// runDir runs one direction of the encoder; carried positions (padding)
// keep the previous state: h_t = h_{t−1} + m_t ⊙ (h'_t − h_{t−1}).
func runDir(g *gx.Graph, c cells.Cell, embs, carry []*gx.Node, B int, reverse bool, name string) ([]*gx.Node, cells.State) {
	S := len(embs)
	st := cells.State{H: g.Input(name+".h0", B, c.Hidden())}
	if c.HasMemory() {
		st.C = g.Input(name+".c0", B, c.Hidden())
	}
	hs := make([]*gx.Node, S)
	for k := 0; k < S; k++ {
		t := k
		if reverse {
			t = S - 1 - k
		}
		next := c.Step(g, []*gx.Node{embs[t]}, st)
		nst := cells.State{H: g.Sum(st.H, g.Mul(carry[t], g.Sub(next.H, st.H)))}
		if c.HasMemory() {
			nst.C = g.Sum(st.C, g.Mul(carry[t], g.Sub(next.C, st.C)))
		}
		st = nst
		hs[t] = st.H
	}
	return hs, st
}

// encodeSequence is Encode for a cell that runs a whole sequence in one op
// (cells.Sequencer): the embeddings of every position at once, [S·B, E],
// and the state carried over padding by the op (keep = the source mask).
func (e *tokenEncoder) encodeSequence(g *gx.Graph, in *tokenInputs, mask *gx.Node, B int) (annot, final *gx.Node) {
	S := mask.Shape()[1]
	x := []*gx.Node{g.Embed(g.Bind(e.emb), in.idsAll)} // [S·B, E]
	run := func(c cells.Cell, reverse bool, name string) *gx.Node {
		s0 := cells.State{H: g.Input(name+".h0", B, c.Hidden())}
		return c.(cells.Sequencer).Sequence(g, x, mask, s0, reverse) // [B, S, h]
	}
	fw := run(e.fwd, false, "enc.fwd")
	if e.bwd == nil {
		return fw, g.TakeStep(fw, S-1)
	}
	bw := run(e.bwd, true, "enc.bwd")
	return g.ConcatLast(fw, bw), g.ConcatLast(g.TakeStep(fw, S-1), g.TakeStep(bw, 0)) // [B, S, H], [B, H]
}
