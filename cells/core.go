package cells

import (
	"fmt"

	"github.com/attnzoo/attnzoo/initializers"
	"github.com/attnzoo/attnzoo/internal/gx"
)

// core holds what every cell here shares: the gated cells stack their
// gates' rows in one matrix per input (W_j [gates·H, In_j]) and one
// recurrent matrix (U [gates·H, H]), so a step costs one matrix product per
// input plus one for the state, however many gates there are.
type core struct {
	name   string
	cfg    Config
	gates  int
	W      []*gx.Param // W_j [gates·H, In_j]
	U      *gx.Param   // [gates·H, H]
	B      *gx.Param   // [gates·H]
	params []*gx.Param
}

// newCore makes the parameters W_0 … W_{k−1}, U and b, drawn in that order
// through c.Init as a cell's (initializers.Cell, CellBiasOf: with the
// "pytorch" scheme all from U(±1/√H), PyTorch's nn.RNN/GRU/LSTM default;
// where PyTorch's b_ih and b_hh both act, their sum is one draw here).
func newCore(name string, c Config, gates int) core {
	cr := core{name: name, cfg: c, gates: gates}
	H := c.Hidden
	for j, in := range c.Inputs {
		cr.W = append(cr.W, cr.param(fmt.Sprintf("W_%d", j), gates*H, in))
	}
	cr.U = cr.param("U", gates*H, H)
	for _, p := range cr.params {
		c.Init.Draw(p, initializers.Cell(H), c.Rand)
	}
	cr.B = cr.param("b", gates*H)
	c.Init.Draw(cr.B, initializers.CellBiasOf(H), c.Rand)
	return cr
}

func (c *core) Name() string        { return c.name }
func (c *core) Hidden() int         { return c.cfg.Hidden }
func (c *core) Gates() int          { return c.gates }
func (c *core) Params() []*gx.Param { return c.params }

func (c *core) param(name string, shape ...int) *gx.Param {
	p := gx.NewParam(c.cfg.Prefix+name, c.cfg.Dtype, shape...)
	c.params = append(c.params, p)
	return p
}

// preact returns Σ_j x_j·W_jᵀ + h·Uᵀ + b  [B, gates·H].
func (c *core) preact(g *gx.Graph, xs []*gx.Node, h *gx.Node) *gx.Node {
	terms := make([]*gx.Node, 0, len(xs)+1)
	for j, x := range xs {
		terms = append(terms, g.Linear(x, g.Bind(c.W[j]), 0))
	}
	terms = append(terms, g.Linear(h, g.Bind(c.U), 0))
	return g.AddBias(g.Sum(terms...), g.Bind(c.B))
}

// inputs returns Σ_j x_j·W_jᵀ + b  [B, gates·H].
func (c *core) inputs(g *gx.Graph, xs []*gx.Node) *gx.Node {
	terms := make([]*gx.Node, len(xs))
	for j, x := range xs {
		terms[j] = g.Linear(x, g.Bind(c.W[j]), 0)
	}
	return g.AddBias(g.Sum(terms...), g.Bind(c.B))
}

// check records an error in g unless xs and s have the configured shapes
// and one batch size.
func (c *core) check(g *gx.Graph, xs []*gx.Node, s State, needC bool) bool {
	if g.Err() != nil {
		return false
	}
	fail := func(f string, a ...any) bool {
		g.Fail(fmt.Errorf("cells: %s: "+f, append([]any{c.name}, a...)...))
		return false
	}
	if len(xs) != len(c.cfg.Inputs) {
		return fail("got %d step inputs, want %d (Inputs %v)", len(xs), len(c.cfg.Inputs), c.cfg.Inputs)
	}
	if s.H == nil {
		return fail("state H is nil")
	}
	if needC && s.C == nil {
		return fail("state C is nil (an lstm needs its memory)")
	}
	H := c.cfg.Hidden
	batch := -1
	shape := func(what string, n *gx.Node, d int) bool {
		if n == nil {
			return fail("%s is nil", what)
		}
		sh := n.Shape()
		if len(sh) != 2 || sh[1] != d {
			return fail("%s has shape %v, want [B, %d]", what, []int(sh), d)
		}
		if batch >= 0 && sh[0] != batch {
			return fail("%s has batch %d, want %d", what, sh[0], batch)
		}
		batch = sh[0]
		return true
	}
	if !shape("state H", s.H, H) || (needC && !shape("state C", s.C, H)) {
		return false
	}
	for j, x := range xs {
		if !shape(fmt.Sprintf("input %d", j), x, c.cfg.Inputs[j]) {
			return false
		}
	}
	return true
}
