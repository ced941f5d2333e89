package gx

import (
	"fmt"
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
	c float64
}
type softmaxXentGradOp struct {
	base
	c float64
}

// SoftmaxXent returns the scalar c·Σ_b m_b·(−log softmax(z_b)[y_b]).
func (g *Graph) SoftmaxXent(logits, targets, mask *Node, c float64) *Node {
	return g.apply(&softmaxXentOp{base{name: "SoftmaxXent", args: fmt.Sprint(c), in: []int{2, 1, 1}, out: 0}, c}, logits, targets, mask)
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

func logSumExp[T float](z []T) (max T, lse float64) {
	max = z[0]
	for _, v := range z {
		if v > max {
			max = v
		}
	}
	var s float64
	for _, v := range z {
		s += math.Exp(float64(v - max))
	}
	return max, float64(max) + math.Log(s)
}

func xent[T float](z, y, m []T, V int) (float64, error) {
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
		_, lse := logSumExp(row)
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
		s, err := xent(o.f64[0], o.f64[1], o.f64[2], V)
		return G.NewF64(op.c * s), err
	}
	s, err := xent(o.f32[0], o.f32[1], o.f32[2], V)
	return G.NewF32(float32(op.c * s)), err
}

func (op *softmaxXentOp) DiffWRT(int) []bool { return []bool{true, false, false} }

func (op *softmaxXentOp) SymDiff(in G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	dz, err := op.applyOp(&softmaxXentGradOp{base{name: "SoftmaxXentGrad", args: fmt.Sprint(op.c), in: []int{2, 1, 1, 0}, out: 2}, op.c}, in[0], in[1], in[2], grad)
	return G.Nodes{dz, nil, nil}, err
}

func (op *softmaxXentGradOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapes(in)
	if err != nil {
		return nil, err
	}
	return s[0].Clone(), nil
}

func xentGrad[T float](z, y, m, out []T, V int, scale T) {
	for b := range y {
		if m[b] == 0 {
			continue
		}
		row, or := z[b*V:(b+1)*V], out[b*V:(b+1)*V]
		max, lse := logSumExp(row)
		_ = max
		k := scale * m[b]
		for i, v := range row {
			or[i] = k * T(math.Exp(float64(v)-lse))
		}
		or[int(y[b])] -= k
	}
}

func (op *softmaxXentGradOp) Do(vs ...G.Value) (G.Value, error) {
	o, err := op.getOperands(vs)
	if err != nil {
		return nil, err
	}
	out := o.alloc(o.sh[0]...)
	V := o.sh[0][1]
	if o.f64 != nil {
		xentGrad(o.f64[0], o.f64[1], o.f64[2], out.Float64s(), V, op.c*o.f64[3][0])
	} else {
		xentGrad(o.f32[0], o.f32[1], o.f32[2], out.Float32s(), V, float32(op.c)*o.f32[3][0])
	}
	return out, nil
}

// LogSoftmax returns log softmax(z) along the last axis of z [B,V], each
// row with its own maximum. Forward only (decoding): it has no gradient.
type logSoftmaxOp struct{ base }

// LogSoftmax returns row-wise log-probabilities of logits [B,V].
func (g *Graph) LogSoftmax(z *Node) *Node {
	return g.apply(&logSoftmaxOp{base{name: "LogSoftmax", in: []int{2}, out: 2}}, z)
}

func (op *logSoftmaxOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	return sameShape("LogSoftmax", in)
}

func logSoftmax[T float](z, out []T, V int) {
	for b := 0; b < len(z)/V; b++ {
		row := z[b*V : (b+1)*V]
		_, lse := logSumExp(row)
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
		logSoftmax(o.f64[0], out.Float64s(), V)
	} else {
		logSoftmax(o.f32[0], out.Float32s(), V)
	}
	return out, nil
}
