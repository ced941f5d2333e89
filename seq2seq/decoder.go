package seq2seq

import (
	"github.com/attnzoo/attnzoo/cells"
	"github.com/attnzoo/attnzoo/internal/gx"
	"github.com/attnzoo/attnzoo/internal/registry"
	"github.com/attnzoo/attnzoo/scorers"
)

// DecoderState is the decoder's recurrent state between steps.
type DecoderState struct {
	Cell cells.State
	Feed *gx.Node // the last attentional output h̃_{t−1}, for a decoder that Feeds; nil otherwise
}

type decState = DecoderState

// DecoderParts are what a decoder step composes, bound to one graph and
// one model.
type DecoderParts struct {
	Cell cells.Cell // the decoder's cell: inputs [y_{t−1} (Embed); Hidden]
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
