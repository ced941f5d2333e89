package gx

import (
	"fmt"

	G "gorgonia.org/gorgonia"
)

// Dropout is inverted dropout as an op of the graph:
//
//	y = x ⊙ m,  m_i = 1/(1 − p) where u_i ≥ p, else 0     ∂x = g ⊙ m
//
// with the mask drawn by the backend from the graph's seed of the run
// (Graph.SetSeed) and the op's index among the graph's dropouts
// (backend.Elementwise.DropoutMask: the same mask on the cpu and on a
// device). Its gradient is the same op on g: the same index, so the same
// mask. The mask is never an input: nothing crosses to a device for it.
type dropoutOp struct {
	base
	p float64
	k int // the op's index among the graph's dropouts
}

// Dropout returns x with each entry dropped with probability p and the
// rest scaled by 1/(1 − p); p = 0 returns x.
func (g *Graph) Dropout(x *Node, p float64) *Node {
	if !g.ok(x) || p == 0 {
		return x
	}
	if p < 0 || p >= 1 {
		g.Failf("gx: Dropout: p = %v, want 0 ≤ p < 1", p)
		return nil
	}
	k := g.run.drops
	g.run.drops++
	return g.apply(newDropout(x.Dims(), p, k), x)
}

func newDropout(nd int, p float64, k int) *dropoutOp {
	return &dropoutOp{base{name: "Dropout", args: fmt.Sprint(p, ",", k), in: []int{nd}, out: nd}, p, k}
}

// SetSeed sets the seed of the masks the graph's dropouts draw at its
// next runs.
func (g *Graph) SetSeed(seed uint64) { g.run.seed = seed }

// forward: the mask into the output, then the output times x.
func (op *dropoutOp) forward(c *call) error {
	n := c.n(0)
	// the k-th dropout's seed: the run's, moved by k times 2⁶⁴/φ
	seed := op.run.seed + uint64(op.k)*0x9e3779b97f4a7c15
	if err := c.be.DropoutMask(c.out, seed, op.p, n); err != nil {
		return err
	}
	return c.be.Mul(c.out, c.out, c.in[0], n)
}

func (op *dropoutOp) SymDiff(_ G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	n, err := op.applyOp(newDropout(grad.Dims(), op.p, op.k), grad)
	return G.Nodes{n}, err
}
