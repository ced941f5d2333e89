package gx

import (
	"fmt"
	"github.com/attnzoo/attnzoo/internal/gx/kern"
	"math"

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
	c   float64
	tmp scratch
}
type softmaxXentGradOp struct {
	base
	c   float64
	tmp scratch
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

// logSumExp returns a row's maximum and log Σ_i e^{z_i}, with the row's
// own maximum subtracted first; the exponentials e^{z_i − max} are left in
// tmp (len(z) entries): float32 takes them in one vectorised pass (exp32)
// and sums them in float64, float64 calls math.Exp.
func logSumExp[T float](z, tmp []T) (max T, lse, sum float64) {
	max = z[0]
	for _, v := range z {
		if v > max {
			max = v
		}
	}
	tmp = tmp[:len(z)]
	for i, v := range z {
		tmp[i] = v - max
	}
	kern.Exps(tmp, tmp)
	for _, e := range tmp {
		sum += float64(e)
	}
	return max, float64(max) + math.Log(sum), sum
}

func xent[T float](z, y, m []T, V int, tmp []T) (float64, error) {
	var total float64
	for b := range y {
		if m[b] == 0 {
			continue
		}
		i := int(y[b])
		if i < 0 || i >= V {
			return 0, fmt.Errorf("gx: SoftmaxXent: target %v of row %d not in [0, %d)", y[b], b, V)
		}
		row := z[b*V : (b+1)*V]
		_, lse, _ := logSumExp(row, tmp)
		total += float64(m[b]) * (lse - float64(row[i]))
	}
	return total, nil
}

func (op *softmaxXentOp) Do(vs ...G.Value) (G.Value, error) {
	o, err := op.getOperands(vs)
	if err != nil {
		return nil, err
	}
	V := o.sh[0][1]
	if o.f64 != nil {
		s, err := xent(o.f64[0], o.f64[1], o.f64[2], V, op.tmp.Get64(V))
		return G.NewF64(op.c * s), err
	}
	s, err := xent(o.f32[0], o.f32[1], o.f32[2], V, op.tmp.Get32(V))
	return G.NewF32(float32(op.c * s)), err
}

func (op *softmaxXentOp) DiffWRT(int) []bool { return []bool{true, false, false} }

func (op *softmaxXentOp) SymDiff(in G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	dz, err := op.applyOp(&softmaxXentGradOp{base: base{name: "SoftmaxXentGrad", args: fmt.Sprint(op.c), in: []int{2, 1, 1, 0}, out: 2}, c: op.c}, in[0], in[1], in[2], grad)
	return G.Nodes{dz, nil, nil}, err
}

func (op *softmaxXentGradOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapes(in)
	if err != nil {
		return nil, err
	}
	return s[0].Clone(), nil
}

// xentGrad writes c·m_b·(softmax(z_b) − onehot(y_b)) per row; float64 as
// e^{z − lse}, float32 as e^{z − max} / Σ from logSumExp's pass.
func xentGrad[T float](z, y, m, out []T, V int, scale T, tmp []T) {
	for b := range y {
		or := out[b*V : (b+1)*V]
		if m[b] == 0 {
			clear(or)
			continue
		}
		row := z[b*V : (b+1)*V]
		_, lse, sum := logSumExp(row, tmp)
		k := scale * m[b]
		if _, ok := any(row).([]float32); ok {
			for i, e := range tmp[:V] {
				or[i] = k * T(float64(e)/sum)
			}
		} else {
			for i, v := range row {
				or[i] = k * T(math.Exp(float64(v)-lse))
			}
		}
		or[int(y[b])] -= k
	}
}

func (op *softmaxXentGradOp) Do(vs ...G.Value) (G.Value, error) {
	o, err := op.getOperands(vs)
	if err != nil {
		return nil, err
	}
	out := o.allocDirty(o.sh[0]...)
	V := o.sh[0][1]
	if o.f64 != nil {
		xentGrad(o.f64[0], o.f64[1], o.f64[2], out.Float64s(), V, op.c*o.f64[3][0], op.tmp.Get64(V))
	} else {
		xentGrad(o.f32[0], o.f32[1], o.f32[2], out.Float32s(), V, float32(op.c)*o.f32[3][0], op.tmp.Get32(V))
	}
	return out, nil
}

// LogSoftmax returns log softmax(z) along the last axis of z [B,V], each
// row with its own maximum. Forward only (decoding): it has no gradient.
type logSoftmaxOp struct {
	base
	tmp scratch
}

// LogSoftmax returns row-wise log-probabilities of logits [B,V].
func (g *Graph) LogSoftmax(z *Node) *Node {
	return g.apply(&logSoftmaxOp{base: base{name: "LogSoftmax", in: []int{2}, out: 2}}, z)
}

func (op *logSoftmaxOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	return sameShape("LogSoftmax", in)
}

func logSoftmax[T float](z, out []T, V int, tmp []T) {
	for b := 0; b < len(z)/V; b++ {
		row := z[b*V : (b+1)*V]
		_, lse, _ := logSumExp(row, tmp)
		for i, v := range row {
			out[b*V+i] = T(float64(v) - lse)
		}
	}
}

func (op *logSoftmaxOp) Do(vs ...G.Value) (G.Value, error) {
	o, err := op.getOperands(vs)
	if err != nil {
		return nil, err
	}
	out := o.allocDirty(o.sh[0]...)
	V := o.sh[0][1]
	if o.f64 != nil {
		logSoftmax(o.f64[0], out.Float64s(), V, op.tmp.Get64(V))
	} else {
		logSoftmax(o.f32[0], out.Float32s(), V, op.tmp.Get32(V))
	}
	return out, nil
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

func argmaxRows[T float](x, out []T, V int) {
	for r := range out {
		row := x[r*V : (r+1)*V]
		best := 0
		for i, v := range row {
			if v > row[best] {
				best = i
			}
		}
		out[r] = T(best)
	}
}

func (op *argmaxOp) Do(vs ...G.Value) (G.Value, error) {
	o, err := op.getOperands(vs)
	if err != nil {
		return nil, err
	}
	N, V := o.sh[0][0], o.sh[0][1]
	out := o.allocDirty(N)
	if o.f64 != nil {
		argmaxRows(o.f64[0], out.Float64s(), V)
	} else {
		argmaxRows(o.f32[0], out.Float32s(), V)
	}
	return out, nil
}
