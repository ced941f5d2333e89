package gx

import (
	"fmt"
	"unsafe"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// base carries what every op of ours shares: its name, the parameters that
// make it distinct (written into its hash: leaving one out lets gorgonia merge
// two different nodes), and the number of dimensions of each input and of
// the output, which make up its type.
//
// An op writes its value into the buffer the machine gives it before each
// run (setOut: its slot in the arena, plan.go), and keeps its operand lists
// from one run to the next, so a compiled graph run again allocates almost
// nothing. An op run outside a machine keeps a buffer of its own. A value
// read after a run (Watch, View) stays valid until the next run of a
// machine of the same arena; copy it (Value does) to keep it longer.
type base struct {
	name string
	args string // every parameter of the op, for the hash
	in   []int  // dims of each input (0 = scalar)
	out  int    // dims of the output

	salt uint32    // the graph's (Graph.salt), written into the hash
	run  *runState // the graph's, shared by its ops

	buf *tensor.Dense // the output: the machine's slot for it, or its own
	ops operands      // the last run's operands, reused

	self forwarder // the op itself, for Do (set when applied: setGraph)
	c    call      // Do's call, reused

	inferred    tensor.Shape   // outShape's last answer
	inferredFor []tensor.Shape // for these operand shapes

	stacked map[int]*weightGroup // inputs whose gradient terms a group sums stacked (stacked.go)
}

func (o *base) Arity() int { return len(o.in) }

func (o *base) Type() hm.Type {
	a := hm.TypeVariable('a')
	ts := make([]hm.Type, 0, len(o.in)+1)
	for _, d := range append(append([]int(nil), o.in...), o.out) {
		if d == 0 {
			ts = append(ts, a)
		} else {
			ts = append(ts, G.TensorType{Dims: d, Of: a})
		}
	}
	return hm.NewFnType(ts...)
}

func (o *base) ReturnsPtr() bool     { return false }
func (o *base) CallsExtern() bool    { return false }
func (o *base) OverwritesInput() int { return -1 }
func (o *base) String() string       { return o.name + "{" + o.args + "}" }

// shapes returns the shapes of the inputs at graph-building time.
func shapes(in []G.DimSizer) ([]tensor.Shape, error) {
	out := make([]tensor.Shape, len(in))
	for i, d := range in {
		s, ok := d.(tensor.Shape)
		if !ok {
			return nil, fmt.Errorf("gx: input %d has no known shape (%T)", i, d)
		}
		out[i] = s
	}
	return out, nil
}

// operands is the inputs of one Do call as slices of a single float type.
type operands struct {
	dt    tensor.Dtype
	f64   [][]float64
	f32   [][]float32
	sh    []tensor.Shape
	owner *base
}

// getOperands reads the inputs of op's Do call. It allocates nothing after
// the op's first run.
func (b *base) getOperands(vs []G.Value) (*operands, error) {
	o := &b.ops
	o.owner = b
	o.f64, o.f32, o.sh = o.f64[:0], o.f32[:0], o.sh[:0]
	for i, v := range vs {
		var dt tensor.Dtype
		switch t := v.(type) {
		case *tensor.Dense:
			dt = t.Dtype()
			o.sh = append(o.sh, t.Shape())
			switch dt {
			case Float64:
				o.f64 = append(o.f64, t.Float64s())
			case Float32:
				o.f32 = append(o.f32, t.Float32s())
			default:
				return nil, fmt.Errorf("gx: %s: unsupported dtype %v", b.name, dt)
			}
		case *G.F64: // a scalar, e.g. the gradient of a scalar cost
			dt = Float64
			o.sh = append(o.sh, tensor.ScalarShape())
			o.f64 = append(o.f64, unsafe.Slice((*float64)(t), 1))
		case *G.F32:
			dt = Float32
			o.sh = append(o.sh, tensor.ScalarShape())
			o.f32 = append(o.f32, unsafe.Slice((*float32)(t), 1))
		default:
			return nil, fmt.Errorf("gx: %s: input %d is %T, want a float tensor", b.name, i, v)
		}
		if i == 0 {
			o.dt = dt
		} else if dt != o.dt {
			return nil, fmt.Errorf("gx: %s: input %d is %v, input 0 is %v", b.name, i, dt, o.dt)
		}
	}
	return o, nil
}

// alloc returns the op's zeroed output of the operands' dtype.
func (o *operands) alloc(shape ...int) *tensor.Dense {
	t := o.allocDirty(shape...)
	t.Zero()
	return t
}

// allocDirty returns the op's output without clearing it: for ops that
// write every entry.
func (o *operands) allocDirty(shape ...int) *tensor.Dense {
	b := o.owner
	if b.buf != nil && b.buf.Dtype() == o.dt && sameInts(b.buf.Shape(), shape) {
		return b.buf
	}
	b.buf = tensor.New(tensor.WithShape(shape...), tensor.Of(o.dt))
	return b.buf
}

func sameInts(s tensor.Shape, shape []int) bool {
	if len(s) != len(shape) {
		return false
	}
	for i, d := range shape {
		if s[i] != d {
			return false
		}
	}
	return true
}

// apply applies op to the nodes, recording any error in g.
func (g *Graph) apply(op G.Op, nodes ...*Node) *Node {
	if !g.ok(nodes...) {
		return nil
	}
	if s, ok := op.(salted); ok {
		s.setGraph(g.salt, g.run, op)
	}
	n, err := G.ApplyOp(op, nodes...)
	if err != nil {
		g.Fail(fmt.Errorf("gx: %v: %w", op, err))
		return nil
	}
	return n
}

// applyOp applies a gradient op, with the salt of the op it differentiates.
func (o *base) applyOp(op G.Op, nodes ...*Node) (*Node, error) {
	if s, ok := op.(salted); ok {
		s.setGraph(o.salt, o.run, op)
	}
	return G.ApplyOp(op, nodes...)
}

// diffAll is the DiffWRT of an op differentiable in each of its n inputs.
func diffAll(n int) []bool {
	d := make([]bool, n)
	for i := range d {
		d[i] = true
	}
	return d
}

// shapeOf is the InferShape of an op whose output has input i's shape.
func shapeOf(in []G.DimSizer, i int) (tensor.Shape, error) {
	s, err := shapes(in)
	if err != nil {
		return nil, err
	}
	return s[i].Clone(), nil
}

// lastOf is the InferShape of an op whose output is a vector of input 0's
// last dimension.
func lastOf(in []G.DimSizer) (tensor.Shape, error) {
	s, err := shapes(in)
	if err != nil {
		return nil, err
	}
	return tensor.Shape{last(s[0])}, nil
}

// lead is the product of all but the last dimension.
func lead(s tensor.Shape) int {
	n := 1
	for _, d := range s[:len(s)-1] {
		n *= d
	}
	return n
}

func last(s tensor.Shape) int { return s[len(s)-1] }

func shapeErr(op string, want string, got []tensor.Shape) error {
	return fmt.Errorf("gx: %s: want %s, got shapes %v", op, want, got)
}
