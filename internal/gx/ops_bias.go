package gx

import (
	"github.com/attnzoo/attnzoo/internal/backend"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// AddBias adds a vector b [H] to every row of x [N..., H]; its gradient is
// g for x and the sum of g over all rows for b.
type addBiasOp struct{ base }
type sumRowsOp struct{ base }

// AddBias returns x + b broadcast over every leading dimension.
func (g *Graph) AddBias(x, b *Node) *Node {
	return g.apply(&addBiasOp{base{name: "AddBias", in: []int{dims(x), 1}, out: dims(x)}}, x, b)
}

func (op *addBiasOp) outShape(s []tensor.Shape) (tensor.Shape, error) {
	if len(s[1]) != 1 || last(s[0]) != s[1][0] {
		return nil, shapeErr("AddBias", "x [..., H] and b [H]", s)
	}
	return s[0].Clone(), nil
}

func (op *addBiasOp) forward(c *call) error {
	return c.be.BiasAdd(c.out, c.in[0], c.in[1], lead(c.sh[0]), last(c.sh[0]))
}

func (op *addBiasOp) DiffWRT(int) []bool { return op.diffWRT([]bool{true, true}) }

func (op *addBiasOp) SymDiff(in G.Nodes, out, grad *G.Node) (G.Nodes, error) {
	db, err := op.term(1, out, grad, func() (*Node, error) { return op.applyOp(newSumRows(grad.Dims()), grad) })
	return G.Nodes{grad, db}, err
}

// weightTerm: b's gradient is SumRows(G), for 2-D x.
func (op *addBiasOp) weightTerm(i int, in []tensor.Shape, _ tensor.Shape) (termKind, [2]int, bool) {
	return termRows, [2]int{}, i == 1 && len(in[0]) == 2
}

func newSumRows(nd int) *sumRowsOp { return &sumRowsOp{base{name: "SumRows", in: []int{nd}, out: 1}} }

func (op *sumRowsOp) outShape(s []tensor.Shape) (tensor.Shape, error) {
	return tensor.Shape{last(s[0])}, nil
}

// into: dst = Σ_r g[r,:] (with acc added: a bias's gradient summed over
// the steps).
func (op *sumRowsOp) into(c *call, dst backend.Buf, acc bool) error {
	n := last(c.sh[0])
	return c.be.ColSums(dst, 0, c.in[0], 0, n, lead(c.sh[0]), n, acc)
}
