package cells

import (
	"fmt"

	"github.com/attnzoo/attnzoo/initializers"
	"github.com/attnzoo/attnzoo/internal/gx"
)

// GRU is the gated recurrent unit of Cho et al. (2014), in the form of
// PyTorch's nn.GRU:
//
//	r  = σ(Σ_j W_rj x_j + U_r h + b_r)
//	z  = σ(Σ_j W_zj x_j + U_z h + b_z)
//	n  = tanh(Σ_j W_nj x_j + b_n + r ⊙ (U_n h + b_hn))
//	h' = (1 − z) ⊙ n + z ⊙ h        computed as n + z ⊙ (h − n)
//
// The reset gate multiplies U_n h + b_hn, after the recurrent product (the
// "v3" form cuDNN uses), not h before it as in the paper's r ⊙ h. The two
// are different functions; this one matches nn.GRU, so the PyTorch
// reference in bench/pytorch runs the same model, and it needs
// one product with U per step instead of two sequential ones.
//
// Parameters (after Config.Prefix), with each gate's rows stacked in
// PyTorch's order r, z, n:
//
//	W_j  [3H, In_j]  "W_0", "W_1", ...   (rows [W_rj; W_zj; W_nj])
//	U    [3H, H]     "U"                 (rows [U_r; U_z; U_n])
//	b    [3H]        "b"                 ([b_r; b_z; b_n])
//	b_hn [H]         "b_hn"
//
// nn.GRU's b_ih, b_hh map to b = b_ih + [b_hh_r; b_hh_z; 0], b_hn = b_hh_n.
// All are drawn through Config.Init (the default "pytorch": U(−1/√H, 1/√H)
// as in PyTorch, biases too).
type GRU struct {
	core
	Bhn *gx.Param
}

var (
	_ Cell      = (*GRU)(nil)
	_ Sequencer = (*GRU)(nil)
)

func init() {
	Register("gru", func(c Config) (Cell, error) {
		cell := &GRU{core: newCore("gru", c, 3)}
		cell.Bhn = cell.param("b_hn", c.Hidden)
		c.Init.Draw(cell.Bhn, initializers.CellBiasOf(c.Hidden), c.Rand)
		return cell, nil
	})
}

func (c *GRU) HasMemory() bool { return false }

// Step runs the gates and the blend as two fused ops (gx.GRUGates,
// gx.GRUBlend), checked against the composition of the equations above.
func (c *GRU) Step(g *gx.Graph, xs []*gx.Node, s State) State {
	if !c.check(g, xs, s, false) {
		return State{}
	}
	proj := make([]*gx.Node, len(xs))
	for j, x := range xs {
		proj[j] = g.Linear(x, g.Bind(c.W[j]), 0) // W_j x_j   [B,3H]
	}
	hh := g.Linear(s.H, g.Bind(c.U), 0) // U h   [B,3H]
	gates := g.GRUGates(proj, hh, g.Bind(c.B), g.Bind(c.Bhn))
	return State{H: g.GRUBlend(gates, s.H)} // [B,H]
}

// Sequence runs the GRU over a whole sequence in one fused op
// (gx.GRUSequence), checked against Step position by position.
func (c *GRU) Sequence(g *gx.Graph, xs []*gx.Node, keep *gx.Node, s0 State, reverse bool) *gx.Node {
	if g.Err() != nil {
		return nil
	}
	if len(xs) != len(c.cfg.Inputs) || s0.H == nil || keep == nil {
		g.Fail(fmt.Errorf("cells: gru: Sequence needs %d inputs, a state and a keep mask, got %d inputs", len(c.cfg.Inputs), len(xs)))
		return nil
	}
	ws := make([]*gx.Node, len(xs))
	for j := range xs {
		ws[j] = g.Bind(c.W[j])
	}
	return g.GRUSequence(xs, ws, g.Bind(c.U), g.Bind(c.B), g.Bind(c.Bhn), s0.H, keep, reverse)
}
