package gx

import (
	"fmt"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// SoftmaxXent is the masked softmax cross-entropy of logits [B,V] against
// target ids [B] (whole numbers in the graph's dtype), weighted by mask [B]
// and scaled by c:
//
//	out = c · Σ_b m_b · (logsumexp(z_b) − z_b[y_b])          (a scalar)
//
// computed with each row's own maximum. Its gradient is
// ∂z_b = g · c · m_b · (softmax(z_b) − onehot(y_b)).
type softmaxXentOp struct {
	base
	c float64
}
type softmaxXentGradOp struct {
	base
	c float64
}

// SoftmaxXent returns the scalar c·Σ_b m_b·(−log softmax(z_b)[y_b]).
func (g *Graph) SoftmaxXent(logits, targets, mask *Node, c float64) *Node {
	return g.apply(&softmaxXentOp{base: base{name: "SoftmaxXent", args: fmt.Sprint(c), in: []int{2, 1, 1}, out: 0}, c: c}, logits, targets, mask)
}

func (op *softmaxXentOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapes(in)
	if err != nil {
		return nil, err
	}
	if len(s[0]) != 2 || len(s[1]) != 1 || len(s[2]) != 1 || s[1][0] != s[0][0] || s[2][0] != s[0][0] {
		return nil, shapeErr("SoftmaxXent", "logits [B,V], targets [B], mask [B]", s)
	}
	return tensor.ScalarShape(), nil
}

// forward: the loss through each row's (a working buffer), an error
// naming the target and its row for one out of [0, V) on the host.
func (op *softmaxXentOp) forward(c *call) error {
	B, V := c.sh[0][0], c.sh[0][1]
	loss, err := c.temp(B)
	if err != nil {
		return err
	}
	if err := c.be.SoftmaxXent(c.out, loss, c.in[0], c.in[1], c.in[2], op.c, B, V); err != nil {
		return fmt.Errorf("gx: SoftmaxXent: %w", err)
	}
	return nil
}

// workspace: the rows' losses.
func (op *softmaxXentOp) workspace(in []tensor.Shape) []int { return []int{in[0][0]} }

func (op *softmaxXentOp) DiffWRT(int) []bool { return []bool{true, false, false} }

func (op *softmaxXentOp) SymDiff(in G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	dz, err := op.applyOp(&softmaxXentGradOp{base: base{name: "SoftmaxXentGrad", args: fmt.Sprint(op.c), in: []int{2, 1, 1, 0}, out: 2}, c: op.c}, in[0], in[1], in[2], grad)
	return G.Nodes{dz, nil, nil}, err
}

func (op *softmaxXentGradOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	return shapeOf(in, 0)
}

func (op *softmaxXentGradOp) forward(c *call) error {
	return c.be.SoftmaxXentGrad(c.out, c.in[0], c.in[1], c.in[2], c.in[3], op.c, c.sh[0][0], c.sh[0][1])
}

// LogSoftmax returns log softmax(z) along the last axis of z [B,V], each
// row with its own maximum. Forward only (decoding): it has no gradient.
type logSoftmaxOp struct{ base }

// LogSoftmax returns row-wise log-probabilities of logits [B,V].
func (g *Graph) LogSoftmax(z *Node) *Node {
	return g.apply(&logSoftmaxOp{base: base{name: "LogSoftmax", in: []int{2}, out: 2}}, z)
}

func (op *logSoftmaxOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	return sameShape("LogSoftmax", in)
}

func (op *logSoftmaxOp) forward(c *call) error {
	return c.be.LogSoftmax(c.out, c.in[0], lead(c.sh[0]), last(c.sh[0]))
}

// ArgmaxLast returns, for every row of x [N,V], the index of its largest
// entry (the first of equal ones), as a whole number in x's dtype: [N].
// It has no gradient (greedy decoding feeds it to Embed).
type argmaxOp struct{ base }

// ArgmaxLast returns the index of the largest entry of every row of x [N,V].
func (g *Graph) ArgmaxLast(x *Node) *Node {
	return g.apply(&argmaxOp{base{name: "ArgmaxLast", in: []int{2}, out: 1}}, x)
}

func (op *argmaxOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapes(in)
	if err != nil {
		return nil, err
	}
	if len(s[0]) != 2 {
		return nil, shapeErr("ArgmaxLast", "x [N,V]", s)
	}
	return tensor.Shape{s[0][0]}, nil
}

func (op *argmaxOp) forward(c *call) error {
	return c.be.Argmax(c.out, c.in[0], c.sh[0][0], c.sh[0][1])
}
