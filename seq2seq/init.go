package seq2seq

import "github.com/attnzoo/attnzoo/internal/gx"

// An init picks the vector the decoder's initial state is made from,
// h_0 = tanh(W_init pool + b_init): the encoder's final state ("final"; an
// encoder without one gives its mean annotation), the mean annotation
// ("mean"), or none ("zero": h_0 = 0, no parameters, and everything the
// decoder learns of the source comes through attention).
type initPool func(g *gx.Graph, final *gx.Node, mean func() *gx.Node) *gx.Node

var inits = map[string]initPool{
	"final": func(g *gx.Graph, final *gx.Node, mean func() *gx.Node) *gx.Node {
		if final == nil {
			return mean()
		}
		return final
	},
	"mean": func(g *gx.Graph, _ *gx.Node, mean func() *gx.Node) *gx.Node { return mean() },
	"zero": nil,
}

// InitNames returns the decoder initial states, sorted.
func InitNames() []string { return sortedKeys(inits) }
