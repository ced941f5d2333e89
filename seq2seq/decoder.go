package seq2seq

import (
	"github.com/attnzoo/attnzoo/cells"
	"github.com/attnzoo/attnzoo/internal/gx"
	"github.com/attnzoo/attnzoo/internal/registry"
	"github.com/attnzoo/attnzoo/scorers"
)

// DecoderState is the decoder's recurrent state between steps.
type DecoderState struct {
	Cell  cells.State   // the top layer's: attention and the attentional layer read its H
	Below []cells.State // with [model] layers = L > 1, the L−1 layers under the top, bottom first
	Feed  *gx.Node      // the last attentional output h̃_{t−1}, for a decoder that Feeds; nil otherwise
}

type decState = DecoderState

// layers returns every layer's state, bottom first.
func (s DecoderState) layers() []cells.State {
	return append(s.Below[:len(s.Below):len(s.Below)], s.Cell)
}

// stacked is the state of layers, bottom first (Feed unset).
func stacked(layers []cells.State) DecoderState {
	n := len(layers) - 1
	return DecoderState{Cell: layers[n], Below: layers[:n:n]}
}

// DecoderParts are what a decoder step composes, bound to one graph and
// one model.
type DecoderParts struct {
	// Cell runs the decoder's cells one step, bottom to top: the bottom
	// layer reads xs, [y_{t−1} (Embed); Hidden], each layer above the new
	// h of the one below (through [model] dropout in training). It returns
	// the new states, Feed unset.
	Cell func(xs []*gx.Node, st DecoderState) DecoderState
	// Attend scores the memory against the query q [B, Hidden], normalises
	// the scores and returns the (gated, with Beta) context.
	Attend func(q *gx.Node) scorers.Step
	// Layer is the attentional layer tanh(W_s s + W_c c + b).
	Layer func(s, c *gx.Node) *gx.Node
}

// Decoder is one step of the decoder's recurrence: attention and the cell,
// in the order that defines the decoder. Every implementation is one file
// calling RegisterDecoder.
type Decoder interface {
	// Feeds reports whether a step takes the previous attentional output
	// (input feeding) as its cell's second input; otherwise that input is
	// the context.
	Feeds() bool
	// Step returns the next state, the attentional layer's output h̃_t when
	// the step needs it itself (nil otherwise: it is then computed for
	// every step at once) and the attention step.
	Step(g *gx.Graph, p DecoderParts, y *gx.Node, st DecoderState) (DecoderState, *gx.Node, scorers.Step)
}

var decoders = registry.New[Decoder]("seq2seq: decoders")

// RegisterDecoder makes a decoder available by name. It panics if the name
// is empty or taken or d is nil (programmer errors).
func RegisterDecoder(name string, d Decoder) {
	if d == nil {
		panic("seq2seq: RegisterDecoder " + name + ": nil decoder")
	}
	decoders.Register(name, d)
}

// DecoderNames returns the decoder names, sorted.
func DecoderNames() []string { return decoders.Names() }

func decoderOf(name string) Decoder {
	d, _ := decoders.Get(name)
	return d
}
