package seq2seq

import (
	"github.com/attnzoo/attnzoo/internal/gx"
	"github.com/attnzoo/attnzoo/internal/registry"
)

// InitPool picks the vector the decoder's initial state is made from,
// h_0 = tanh(W_init pool + b_init), given the encoder's final state (nil
// for an encoder without one) and its mean annotation. The inits:
// the encoder's final state ("final"; an encoder without one gives its
// mean annotation), the mean annotation ("mean"), or none ("zero": a nil
// InitPool, h_0 = 0, no parameters, and everything the decoder learns of
// the source comes through attention).
type InitPool func(g *gx.Graph, final *gx.Node, mean func() *gx.Node) *gx.Node

var inits = registry.New[InitPool]("seq2seq: init")

// RegisterInit makes an init available by name (the [model] init key); a
// nil pool starts the decoder from zeros. It panics if the name is empty
// or taken.
func RegisterInit(name string, pool InitPool) { inits.Register(name, pool) }

func init() {
	RegisterInit("final", func(g *gx.Graph, final *gx.Node, mean func() *gx.Node) *gx.Node {
		if final == nil {
			return mean()
		}
		return final
	})
	RegisterInit("mean", func(g *gx.Graph, _ *gx.Node, mean func() *gx.Node) *gx.Node { return mean() })
	RegisterInit("zero", nil)
}

// InitNames returns the decoder initial states, sorted.
func InitNames() []string { return inits.Names() }
