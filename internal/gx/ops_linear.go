package gx

import (
	"fmt"
	"github.com/attnzoo/attnzoo/internal/backend"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Linear maps every row of X by the first `rows` rows of W:
//
//	out[..., r] = Σ_d X[..., d] · W[r, d]      r < rows
//
// X is [N..., D] (any number of leading dimensions), W is [R, D] with
// rows ≤ R; out is [N..., rows]. With rows = R it is X·Wᵀ, the usual linear
// layer; with rows < R it uses a prefix of W (Luong's location scorer, whose
// W has one row per possible source position). Gradients:
//
//	∂/∂X = G · W[:rows]            (linearTOp)
//	∂/∂W = [Gᵀ · X; 0]             (linearWOp, rows ≥ `rows` get zero)
type linearOp struct {
	base
	rows   int
	wInput bool // W is an input of the graph: constant within a run
}

type linearTOp struct {
	base
	wInput bool // W is an input of the graph: constant within a run
}

type linearWOp struct {
	base
	R int
}

// Linear returns X·W[:rows]ᵀ for X [N..., D], W [R, D]; rows = 0 means R.
func (g *Graph) Linear(X, W *Node, rows int) *Node {
	if !g.ok(X, W) {
		return nil
	}
	if W.Dims() != 2 || X.Dims() < 1 {
		g.Failf("gx: Linear: want X [..., D] and W [R, D], got shapes %v and %v", X.Shape(), W.Shape())
		return nil
	}
	if rows == 0 {
		rows = W.Shape()[0]
	}
	// Rows looked up in a table, then multiplied, are rows looked up in the
	// table's product, the same sums: Linear(Embed(E, ids), W) =
	// Embed(Linear(E, W), ids). With no more table rows than ids (a
	// vocabulary of 32 at a batch of 64), the product runs on V rows once
	// per run instead of on N rows at every step that looks tokens up, and
	// the gradient sums each token's rows before its product.
	if l, ok := g.lookups[X]; ok && l[0].Shape()[0] <= X.Shape()[0] {
		return g.Embed(g.Linear(l[0], W, rows), l[1])
	}
	return g.apply(&linearOp{base{name: "Linear", args: fmt.Sprint(rows), in: []int{X.Dims(), 2}, out: X.Dims()}, rows, W.IsVar()}, X, W)
}

func (op *linearOp) outShape(s []tensor.Shape) (tensor.Shape, error) {
	if len(s[0]) < 1 || len(s[1]) != 2 || last(s[0]) != s[1][1] || op.rows > s[1][0] || op.rows < 1 {
		return nil, fmt.Errorf("gx: Linear: X %v and W %v do not fit (want X [..., D], W [R, D], 1 ≤ rows=%d ≤ R)", s[0], s[1], op.rows)
	}
	out := s[0].Clone()
	out[len(out)-1] = op.rows
	return out, nil
}

// forward: out[N,rows] = X[N,D] · W[:rows]ᵀ, W a weight the backend may
// prepare once per run when it is an input of the graph.
func (op *linearOp) forward(c *call) error {
	N, D := lead(c.sh[0]), last(c.sh[0])
	return c.be.Gemm(N, op.rows, D, 1, mat(c.in[0], D), backend.Mat{Buf: c.in[1], Ld: D, T: true, Const: op.wInput}, 0, mat(c.out, op.rows))
}

func (op *linearOp) DiffWRT(int) []bool { return op.diffWRT([]bool{true, true}) }

func (op *linearOp) SymDiff(in G.Nodes, out, grad *G.Node) (G.Nodes, error) {
	nd := in[0].Dims()
	var err error
	dX := op.grad(&err, &linearTOp{base{name: "LinearT", in: []int{nd, 2}, out: nd}, in[1].IsVar()}, grad, in[1])
	dW := op.gradTerm(&err, 1, out, grad, newLinearW(in[1].Shape()[0], nd), grad, in[0])
	return G.Nodes{dX, dW}, err
}

// weightTerm: W's gradient is LinearW(G, X), a product term, for 2-D X.
func (op *linearOp) weightTerm(i int, in []tensor.Shape, _ tensor.Shape) (termKind, [2]int, bool) {
	return termProduct, [2]int{in[1][0]}, i == 1 && len(in[0]) == 2
}

func newLinearW(R, nd int) *linearWOp {
	return &linearWOp{base{name: "LinearW", args: fmt.Sprint(R), in: []int{nd, nd}, out: 2}, R}
}

// linearTOp: G [N..., rows], W [R, D] → G · W[:rows]  [N..., D].
func (op *linearTOp) outShape(s []tensor.Shape) (tensor.Shape, error) {
	out := s[0].Clone()
	out[len(out)-1] = s[1][1]
	return out, nil
}

// into: ∂X[N,D] = G[N,rows] · W[:rows]; with acc the GEMM with β = 1 (an
// activation's gradient summed over the ops that read it).
func (op *linearTOp) into(c *call, dst backend.Buf, acc bool) error {
	N, rows, D := lead(c.sh[0]), last(c.sh[0]), c.sh[1][1]
	return c.be.Gemm(N, D, rows, 1, mat(c.in[0], rows), backend.Mat{Buf: c.in[1], Ld: D, Const: op.wInput}, beta(acc), mat(dst, D))
}

// beta is a GEMM's β: 1 to add into its output (acc), else 0.
func beta(acc bool) float64 {
	if acc {
		return 1
	}
	return 0
}

// linearWOp: G [N..., rows], X [N..., D] → [R, D], first rows = Gᵀ·X.
func (op *linearWOp) outShape(s []tensor.Shape) (tensor.Shape, error) {
	return tensor.Shape{op.R, last(s[1])}, nil
}

// into sets dst = [Gᵀ·X; 0], the rows past `rows` zero, or with acc adds
// Gᵀ·X into dst's first rows (the GEMM with β = 1: a weight gradient
// summed over the steps that read the weight needs no product buffer and
// no sum of its own).
func (op *linearWOp) into(c *call, dst backend.Buf, acc bool) error {
	N, rows, D := lead(c.sh[0]), last(c.sh[0]), last(c.sh[1])
	if rows != op.R && !acc {
		if err := c.be.Fill(dst, 0, op.R*D); err != nil {
			return err
		}
	}
	return c.be.Gemm(rows, D, N, 1, backend.Mat{Buf: c.in[0], Ld: rows, T: true}, mat(c.in[1], D), beta(acc), mat(dst, D))
}
