package gx

import (
	"fmt"
	"github.com/attnzoo/attnzoo/internal/gx/kern"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Multi-head attention on one memory. A query y [B,D] and keys X [B,S,D]
// split their last axis into h heads of a = D/h; head k scores with its own
// block, and the rows of the result are batch-major, head-minor:
//
//	BMVHeads(X, y, h, c)[b·h+k, i] = c · Σ_{j<a} X[b,i,k·a+j] · y[b,k·a+j]
//
// (the BMV family of ops_bmv.go with h heads), so a [B·h,S] mask and a
// row-wise softmax normalise each head on its own. The heads' weights come
// back to one distribution per batch row with their mean, and a [B,S] mask
// goes to every head with RepeatRows:
//
//	HeadMean(w [B·h,S], h)[b,i]     = (1/h) · Σ_k w[b·h+k, i]
//	RepeatRows(m [B,S], h)[b·h+k,i] = m[b,i]
//
// each the other's gradient up to the scale: ∂HeadMean = RepeatRows(g)/h,
// ∂RepeatRows = h·HeadMean(g).

// BMVHeads returns the h heads' scores [B·h,S] of keys X [B,S,D] against
// queries y [B,D], each scaled by c; D must be a multiple of h.
func (g *Graph) BMVHeads(X, y *Node, h int, c float64) *Node {
	if h < 1 {
		g.Failf("gx: BMVHeads: %d heads", h)
		return nil
	}
	return g.apply(newBMVHeads(c, h), X, y)
}

// HeadMean returns the mean over each batch row's h consecutive rows:
// w [B·h,S] → [B,S].
func (g *Graph) HeadMean(w *Node, h int) *Node {
	if h < 1 {
		g.Failf("gx: HeadMean: %d heads", h)
		return nil
	}
	return g.apply(newGroupRows(h, 1/float64(h), false), w)
}

// RepeatRows repeats each row of m [B,S] h times: → [B·h,S].
func (g *Graph) RepeatRows(m *Node, h int) *Node {
	if h < 1 {
		g.Failf("gx: RepeatRows: %d heads", h)
		return nil
	}
	return g.apply(newGroupRows(h, 1, true), m)
}

// groupRowsOp is HeadMean (repeat false: c · the sum of each h rows) and
// RepeatRows (repeat true: c · each row h times).
type groupRowsOp struct {
	base
	h      int
	c      float64
	repeat bool
}

func newGroupRows(h int, c float64, repeat bool) *groupRowsOp {
	name := "GroupSum"
	if repeat {
		name = "RepeatRows"
	}
	return &groupRowsOp{base{name: name, args: fmt.Sprint(h, "/", c), in: []int{2}, out: 2}, h, c, repeat}
}

func (op *groupRowsOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapes(in)
	if err != nil {
		return nil, err
	}
	if len(s[0]) != 2 {
		return nil, shapeErr(op.name, "x [N,S]", s)
	}
	if op.repeat {
		return tensor.Shape{s[0][0] * op.h, s[0][1]}, nil
	}
	if s[0][0]%op.h != 0 {
		return nil, shapeErr(op.name, fmt.Sprintf("x [B·h,S] for h = %d heads", op.h), s)
	}
	return tensor.Shape{s[0][0] / op.h, s[0][1]}, nil
}

func (op *groupRowsOp) Do(vs ...G.Value) (G.Value, error) {
	o, err := op.getOperands(vs)
	if err != nil {
		return nil, err
	}
	N, S := o.sh[0][0], o.sh[0][1]
	if op.repeat {
		out := o.allocDirty(N*op.h, S)
		if o.f64 != nil {
			repeatRows(o.f64[0], out.Float64s(), N, S, op.h, op.c)
		} else {
			repeatRows(o.f32[0], out.Float32s(), N, S, op.h, float32(op.c))
		}
		return out, nil
	}
	out := o.alloc(N/op.h, S)
	if o.f64 != nil {
		groupSum(o.f64[0], out.Float64s(), N/op.h, S, op.h, op.c)
	} else {
		groupSum(o.f32[0], out.Float32s(), N/op.h, S, op.h, float32(op.c))
	}
	return out, nil
}

func (op *groupRowsOp) DiffWRT(int) []bool { return []bool{true} }

func (op *groupRowsOp) SymDiff(_ G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	n, err := op.applyOp(newGroupRows(op.h, op.c, !op.repeat), grad)
	return G.Nodes{n}, err
}

// repeatRows sets out[b·h+k] = c·x[b] for x [B,S].
func repeatRows[T float](x, out []T, B, S, h int, c T) {
	for b := 0; b < B; b++ {
		for k := 0; k < h; k++ {
			kern.ScaleTo(c, x[b*S:(b+1)*S], out[(b*h+k)*S:(b*h+k+1)*S])
		}
	}
}

// groupSum adds c·x[b·h+k] over k into out[b] (out zeroed).
func groupSum[T float](x, out []T, B, S, h int, c T) {
	for b := 0; b < B; b++ {
		for k := 0; k < h; k++ {
			kern.Axpy(c, x[(b*h+k)*S:(b*h+k+1)*S], out[b*S:(b+1)*S])
		}
	}
}

// bmvHeads is one strided matrix–vector product per batch row and head:
// head k's keys are the S×a block at column k·a of X[b] (leading dimension D).
func bmvHeads[T float](X, y, out []T, B, S, D, h int, c T) {
	a := D / h
	for b := 0; b < B; b++ {
		for k := 0; k < h; k++ {
			x := X[b*S*D+k*a : b*S*D+(S-1)*D+(k+1)*a]
			yk := y[b*D+k*a : b*D+(k+1)*a]
			o := out[(b*h+k)*S : (b*h+k+1)*S]
			switch x := any(x).(type) {
			case []float32:
				blas32.Implementation().Sgemv(blas.NoTrans, S, a, float32(c), x, D, any(yk).([]float32), 1, 0, any(o).([]float32), 1)
			case []float64:
				blas64.Implementation().Dgemv(blas.NoTrans, S, a, float64(c), x, D, any(yk).([]float64), 1, 0, any(o).([]float64), 1)
			}
		}
	}
}

// wsumHeads adds c·w[b·h+k,i]·X[b,i,block k] into out[b, block k] (out zeroed).
func wsumHeads[T float](w, X, out []T, B, S, D, h int, c T) {
	a := D / h
	for b := 0; b < B; b++ {
		for k := 0; k < h; k++ {
			ob := out[b*D+k*a : b*D+(k+1)*a]
			for i := 0; i < S; i++ {
				wi := c * w[(b*h+k)*S+i]
				if wi == 0 {
					continue
				}
				kern.Axpy(wi, X[(b*S+i)*D+k*a:(b*S+i)*D+(k+1)*a], ob)
			}
		}
	}
}

// outerHeads sets out[b,i,block k] = c·w[b·h+k,i]·y[b,block k].
func outerHeads[T float](w, y, out []T, B, S, D, h int, c T, acc bool) {
	if !kern.Splits(B, S*D) {
		outerRows(w, y, out, S, D, h, c, acc, 0, B)
		return
	}
	kern.Parallel(B, S*D, func(b0, b1 int) { outerRows(w, y, out, S, D, h, c, acc, b0, b1) })
}

// outerRows is outerHeads on batch rows [b0, b1).
func outerRows[T float](w, y, out []T, S, D, h int, c T, acc bool, b0, b1 int) {
	a := D / h
	for b := b0; b < b1; b++ {
		for k := 0; k < h; k++ {
			yk := y[b*D+k*a : b*D+(k+1)*a]
			for i := 0; i < S; i++ {
				o := out[(b*S+i)*D+k*a : (b*S+i)*D+(k+1)*a]
				if acc {
					kern.Axpy(c*w[(b*h+k)*S+i], yk, o)
				} else {
					kern.ScaleTo(c*w[(b*h+k)*S+i], yk, o)
				}
			}
		}
	}
}
