package cells

import "github.com/attnzoo/attnzoo/internal/gx"

// RNN is the Elman (1990) recurrent cell, PyTorch's nn.RNN with tanh:
//
//	h' = tanh(Σ_j W_j x_j + U h + b)
//
// Parameters (after Config.Prefix): W_j [H, In_j] for each input j
// ("W_0", "W_1", ...), U [H, H] ("U") and b [H] ("b"), drawn through
// Config.Init (the default "pytorch": all U(−1/√H, 1/√H) as in PyTorch).
type RNN struct{ core }

var _ Cell = (*RNN)(nil)

func init() {
	Register("rnn", func(c Config) (Cell, error) {
		return &RNN{newCore("rnn", c, 1)}, nil
	})
}

func (c *RNN) HasMemory() bool { return false }

func (c *RNN) Step(g *gx.Graph, xs []*gx.Node, s State) State {
	if !c.check(g, xs, s, false) {
		return State{}
	}
	return State{H: g.Tanh(c.preact(g, xs, s.H))} // [B,H]
}
