package gx

import (
	"fmt"

	"github.com/attnzoo/attnzoo/internal/backend"
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
// ∂z_b = g · c · m_b · (softmax(z_b) − onehot(y_b)). With label smoothing
// (SmoothedXent) ε = eps[0] is read when the graph runs and
//
//	out = c · Σ_b m_b · ((1−ε)·(logsumexp(z_b) − z_b[y_b]) + ε·(logsumexp(z_b) − mean_i z_bi))
//	∂z_b = g · c · m_b · (softmax(z_b) − (1−ε)·onehot(y_b) − ε/V)
//
// the cross-entropy against (1−ε)·onehot(y_b) + ε/V, PyTorch's
// F.cross_entropy(label_smoothing=ε).
type softmaxXentOp struct {
	base
	c      float64
	smooth bool // a fourth input: ε [1]
}
type softmaxXentGradOp struct { // (z, targets, mask, g, and ε where smoothed)
	base
	c float64
}

// SoftmaxXent returns the scalar c·Σ_b m_b·(−log softmax(z_b)[y_b]).
func (g *Graph) SoftmaxXent(logits, targets, mask *Node, c float64) *Node {
	return g.apply(&softmaxXentOp{base: base{name: "SoftmaxXent", args: fmt.Sprint(c), in: []int{2, 1, 1}, out: 0}, c: c}, logits, targets, mask)
}

// SmoothedXent is SoftmaxXent with label smoothing ε = eps[0] (eps [1]).
func (g *Graph) SmoothedXent(logits, targets, mask, eps *Node, c float64) *Node {
	return g.apply(&softmaxXentOp{base: base{name: "SmoothedXent", args: fmt.Sprint(c), in: []int{2, 1, 1, 1}, out: 0}, c: c, smooth: true},
		logits, targets, mask, eps)
}

func (op *softmaxXentOp) outShape(s []tensor.Shape) (tensor.Shape, error) {
	if len(s[0]) != 2 || len(s[1]) != 1 || len(s[2]) != 1 || s[1][0] != s[0][0] || s[2][0] != s[0][0] ||
		op.smooth && (len(s) != 4 || len(s[3]) != 1 || s[3][0] != 1) {
		return nil, shapeErr(op.name, "logits [B,V], targets [B], mask [B] (and ε [1])", s)
	}
	return tensor.ScalarShape(), nil
}

// eps is the call's ε buffer, operand i: none without smoothing (fewer
// operands).
func eps(c *call, i int) backend.Buf {
	if i < len(c.in) {
		return c.in[i]
	}
	return backend.Buf{}
}

// forward: the loss through each row's (a working buffer), an error
// naming the target and its row for one out of [0, V) on the host.
func (op *softmaxXentOp) forward(c *call) error {
	B, V := c.sh[0][0], c.sh[0][1]
	loss, err := c.temp(B)
	if err != nil {
		return err
	}
	if err := c.be.SoftmaxXent(c.out, loss, c.in[0], c.in[1], c.in[2], eps(c, 3), op.c, B, V); err != nil {
		return fmt.Errorf("gx: %s: %w", op.name, err)
	}
	return nil
}

// workspace: the rows' losses.
func (op *softmaxXentOp) workspace(in []tensor.Shape) []int { return []int{in[0][0]} }

func (op *softmaxXentOp) DiffWRT(n int) []bool { return append([]bool{true}, make([]bool, n-1)...) }

func (op *softmaxXentOp) SymDiff(in G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	args := append(G.Nodes{in[0], in[1], in[2], grad}, in[3:]...) // and ε
	dz, err := op.applyOp(&softmaxXentGradOp{base{name: op.name + "Grad", args: fmt.Sprint(op.c), in: dimsOf(args), out: 2}, op.c}, args...)
	return append(G.Nodes{dz}, make(G.Nodes, len(in)-1)...), err
}

func (op *softmaxXentGradOp) outShape(s []tensor.Shape) (tensor.Shape, error) {
	return s[0].Clone(), nil
}

func (op *softmaxXentGradOp) forward(c *call) error {
	return c.be.SoftmaxXentGrad(c.out, c.in[0], c.in[1], c.in[2], eps(c, 4), c.in[3], op.c, c.sh[0][0], c.sh[0][1])
}

// LogSoftmax returns log softmax(z) along the last axis of z [B,V], each
// row with its own maximum. Forward only (decoding): it has no gradient.
type logSoftmaxOp struct{ base }

// LogSoftmax returns row-wise log-probabilities of logits [B,V].
func (g *Graph) LogSoftmax(z *Node) *Node {
	return g.apply(&logSoftmaxOp{base: base{name: "LogSoftmax", in: []int{2}, out: 2}}, z)
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

func (op *argmaxOp) outShape(s []tensor.Shape) (tensor.Shape, error) {
	if len(s[0]) != 2 {
		return nil, shapeErr("ArgmaxLast", "x [N,V]", s)
	}
	return tensor.Shape{s[0][0]}, nil
}

func (op *argmaxOp) forward(c *call) error {
	return c.be.Argmax(c.out, c.in[0], c.sh[0][0], c.sh[0][1])
}
