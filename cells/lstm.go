package cells

import "github.com/attnzoo/attnzoo/internal/gx"

// LSTM is the long short-term memory of Hochreiter & Schmidhuber (1997)
// with the forget gate of Gers et al. (2000), in the form of PyTorch's
// nn.LSTM (no peepholes):
//
//	i  = σ(Σ_j W_ij x_j + U_i h + b_i)
//	f  = σ(Σ_j W_fj x_j + U_f h + b_f)
//	g  = tanh(Σ_j W_gj x_j + U_g h + b_g)
//	o  = σ(Σ_j W_oj x_j + U_o h + b_o)
//	c' = f ⊙ c + i ⊙ g
//	h' = o ⊙ tanh(c')
//
// Parameters (after Config.Prefix), each gate's rows stacked in PyTorch's
// order i, f, g, o:
//
//	W_j [4H, In_j]  "W_0", "W_1", ...   (rows [W_ij; W_fj; W_gj; W_oj])
//	U   [4H, H]     "U"
//	b   [4H]        "b"                 (nn.LSTM's b_ih + b_hh)
//
// Every parameter is drawn through Config.Init (the "pytorch" scheme:
// U(−1/√H, 1/√H) as in PyTorch; the others leave b at zero); then the
// forget gate's bias is set to 1, whatever the scheme (Gers et al. 2000;
// Jozefowicz et al. 2015): f ≈ σ(1) ≈ 0.73 keeps the memory from the first update on, so
// gradients flow through c from the start of training.
type LSTM struct{ core }

var _ Cell = (*LSTM)(nil)

func init() {
	Register("lstm", func(c Config) (Cell, error) {
		cell := &LSTM{newCore("lstm", c, 4)}
		for k := c.Hidden; k < 2*c.Hidden; k++ {
			cell.B.SetAt(k, 1)
		}
		return cell, nil
	})
}

func (c *LSTM) HasMemory() bool { return true }

func (c *LSTM) Step(g *gx.Graph, xs []*gx.Node, s State) State {
	if !c.check(g, xs, s, true) {
		return State{}
	}
	H := c.cfg.Hidden
	pre := c.preact(g, xs, s.H) // [B,4H]
	part := func(k int) *gx.Node { return g.SliceLast(pre, k*H, (k+1)*H) }
	i, f, o := g.Sigmoid(part(0)), g.Sigmoid(part(1)), g.Sigmoid(part(3))
	gg := g.Tanh(part(2))
	cNew := g.Add(g.Mul(f, s.C), g.Mul(i, gg)) // [B,H]
	return State{H: g.Mul(o, g.Tanh(cNew)), C: cNew}
}
