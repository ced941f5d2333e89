package seq2seq

import (
	"fmt"
	"strings"

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
//
// With [model] layers = L > 1 the cells stack as nn.GRU(num_layers=L,
// bidirectional=…, dropout=p) stacks them: layer l ≥ 1 reads layer l−1's
// states (birnn: both directions', [→h_t; ←h_t], as two inputs of the
// cell), through dropout p in training and none after the top layer; the
// annotations are the top layer's, and the final state is every layer's,
// bottom first, [B, L·Hidden] (the decoder's layer l starts from layer
// l's: Model.encode).
type tokenEncoder struct {
	emb       *gx.Param
	fwd, bwd  []cells.Cell // one per layer, bottom first; bwd is nil for rnn
	hidden    int          // units per direction
	sequencer bool
}

func init() {
	for name, bi := range map[string]bool{"rnn": false, "birnn": true} {
		RegisterEncoder(name, EncoderInfo{
			Reads: source.Tokens, Final: true, Stacks: true,
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

// tokenCost: the source embedding [V_s, E] and the cells (a layer above
// the first reads dirs·h values), and per training graph each layer's and
// direction's gates and states at every position; a layer above the first
// also its input made time-major and dropped out (4 values a unit).
func tokenCost(s CostSizes, bi bool) Cost {
	dirs, h := 1.0, s.Hidden
	if bi {
		dirs, h = 2, s.Hidden/2
	}
	L := max(s.Layers, 1)
	var c Cost
	c.S = s.MaxSrc
	c.Params += s.SrcVocab*s.Embed + dirs*s.CellParams(s.Embed, h) + (L-1)*dirs*s.CellParams(dirs*h, h)
	c.largest("[model] embed × the source vocabulary (the source embedding)", s.SrcVocab*s.Embed)
	c.Activations = c.S * s.Batch * (L*dirs*(3*s.Gates+6)*h + s.Embed + (L-1)*dirs*4*h)
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
	b.Later(func() error {
		in := []int{c.Embed}
		for l := range c.Layers {
			f, err := b.Cell(layerPrefix("enc.fwd.", l), in, e.hidden)
			if err != nil {
				return err
			}
			e.fwd = append(e.fwd, f)
			if bi {
				bw, err := b.Cell(layerPrefix("enc.bwd.", l), in, e.hidden)
				if err != nil {
					return err
				}
				e.bwd = append(e.bwd, bw)
			}
			in = []int{e.hidden} // the layer below's states: →h (and ←h)
			if bi {
				in = append(in, e.hidden)
			}
		}
		_, e.sequencer = e.fwd[0].(cells.Sequencer)
		return nil
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
	return e.encodeDrop(g, inputs, mask, B, 0)
}

// encodeDrop is Encode with dropout p between stacked layers (the
// training graph's; 0 in the decoding graphs).
func (e *tokenEncoder) encodeDrop(g *gx.Graph, inputs EncoderInputs, mask *gx.Node, B int, p float64) (annot, final *gx.Node) {
	in := inputs.(*tokenInputs)
	if in.idsAll != nil {
		return e.encodeSequence(g, in, mask, B, p)
	}
	E := g.Bind(e.emb)
	xs := make([][]*gx.Node, len(in.ids)) // each position's inputs to the layer
	for t, ids := range in.ids {
		xs[t] = []*gx.Node{g.Embed(E, ids)} // [B, E]
	}
	var finals []*gx.Node
	for l := range e.fwd {
		fw, fst := runDir(g, e.fwd[l], xs, in.carry, B, false, layerName("enc.fwd", l))
		var bw []*gx.Node
		if e.bwd == nil {
			annot, final = g.Stack(fw...), fst.H
		} else {
			var bst cells.State
			bw, bst = runDir(g, e.bwd[l], xs, in.carry, B, true, layerName("enc.bwd", l))
			annot, final = g.ConcatLast(g.Stack(fw...), g.Stack(bw...)), g.ConcatLast(fst.H, bst.H) // [B, S, H], [B, H]
		}
		finals = append(finals, final)
		if l+1 < len(e.fwd) {
			for t := range xs {
				xs[t] = []*gx.Node{g.Dropout(fw[t], p)}
				if bw != nil {
					xs[t] = append(xs[t], g.Dropout(bw[t], p))
				}
			}
		}
	}
	return annot, concatCols(g, finals)
}

// layerName is the name of layer l's graph inputs: name for the first
// layer, name+".l<l>" above it.
func layerName(name string, l int) string {
	return strings.TrimSuffix(layerPrefix(name+".", l), ".")
}

// concatCols joins nodes [B, H_i] into [B, ΣH_i] (one node: itself).
func concatCols(g *gx.Graph, xs []*gx.Node) *gx.Node {
	out := xs[0]
	for _, x := range xs[1:] {
		out = g.ConcatLast(out, x)
	}
	return out
}

// runDir runs one direction of one layer of the encoder over xs, each
// position's inputs; carried positions (padding) keep the previous state:
// h_t = h_{t−1} + m_t ⊙ (h'_t − h_{t−1}).
func runDir(g *gx.Graph, c cells.Cell, xs [][]*gx.Node, carry []*gx.Node, B int, reverse bool, name string) ([]*gx.Node, cells.State) {
	S := len(xs)
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
		next := c.Step(g, xs[t], st)
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
// A layer above the first reads the one below's states made time-major
// again, [S·B, h] per direction.
func (e *tokenEncoder) encodeSequence(g *gx.Graph, in *tokenInputs, mask *gx.Node, B int, p float64) (annot, final *gx.Node) {
	S := mask.Shape()[1]
	x := []*gx.Node{g.Embed(g.Bind(e.emb), in.idsAll)} // [S·B, E]
	run := func(c cells.Cell, reverse bool, name string) *gx.Node {
		s0 := cells.State{H: g.Input(name+".h0", B, c.Hidden())}
		return c.(cells.Sequencer).Sequence(g, x, mask, s0, reverse) // [B, S, h]
	}
	var finals []*gx.Node
	for l := range e.fwd {
		fw := run(e.fwd[l], false, layerName("enc.fwd", l))
		var bw *gx.Node
		if e.bwd == nil {
			annot, final = fw, g.TakeStep(fw, S-1)
		} else {
			bw = run(e.bwd[l], true, layerName("enc.bwd", l))
			annot, final = g.ConcatLast(fw, bw), g.ConcatLast(g.TakeStep(fw, S-1), g.TakeStep(bw, 0)) // [B, S, H], [B, H]
		}
		finals = append(finals, final)
		if l+1 < len(e.fwd) {
			x = []*gx.Node{g.Dropout(timeMajor(g, fw, S), p)}
			if bw != nil {
				x = append(x, g.Dropout(timeMajor(g, bw, S), p))
			}
		}
	}
	return annot, concatCols(g, finals)
}

// timeMajor lays out X [B, S, h] as [S·B, h], row t·B+i.
func timeMajor(g *gx.Graph, X *gx.Node, S int) *gx.Node {
	rows := make([]*gx.Node, S)
	for t := range rows {
		rows[t] = g.TakeStep(X, t)
	}
	return g.StackRows(rows...)
}
