package gx

import (
	"fmt"
	"hash"
	"hash/fnv"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// base carries what every op of ours shares: its name, the parameters that
// make it distinct (written into its hash: leaving one out lets gorgonia merge
// two different nodes), and the number of dimensions of each input and of
// the output, which make up its type.
type base struct {
	name string
	args string // every parameter of the op, for the hash
	in   []int  // dims of each input (0 = scalar)
	out  int    // dims of the output
}

func (o base) Arity() int { return len(o.in) }

func (o base) Type() hm.Type {
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

func (o base) ReturnsPtr() bool     { return false }
func (o base) CallsExtern() bool    { return false }
func (o base) OverwritesInput() int { return -1 }
func (o base) String() string       { return o.name + "{" + o.args + "}" }
func (o base) WriteHash(h hash.Hash) {
	fmt.Fprintf(h, "attnzoo.%s{%s}%v->%d", o.name, o.args, o.in, o.out)
}
func (o base) Hashcode() uint32 {
	h := fnv.New32a()
	o.WriteHash(h)
	return h.Sum32()
}

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
	dt  tensor.Dtype
	f64 [][]float64
	f32 [][]float32
	sh  []tensor.Shape
}

func getOperands(name string, vs []G.Value) (*operands, error) {
	o := &operands{}
	for i, v := range vs {
		if sc, ok := v.(G.Scalar); ok { // a scalar, e.g. the gradient of a scalar cost
			if i == 0 {
				o.dt = sc.Dtype()
			}
			o.sh = append(o.sh, tensor.ScalarShape())
			if err := o.add(name, sc.Data()); err != nil {
				return nil, err
			}
			continue
		}
		t, ok := v.(tensor.Tensor)
		if !ok {
			return nil, fmt.Errorf("gx: %s: input %d is %T, want a tensor", name, i, v)
		}
		if i == 0 {
			o.dt = t.Dtype()
		} else if t.Dtype() != o.dt {
			return nil, fmt.Errorf("gx: %s: input %d is %v, input 0 is %v", name, i, t.Dtype(), o.dt)
		}
		o.sh = append(o.sh, t.Shape())
		if err := o.add(name, t.Data()); err != nil {
			return nil, err
		}
	}
	return o, nil
}

func (o *operands) add(name string, data any) error {
	switch d := data.(type) {
	case []float64:
		o.f64 = append(o.f64, d)
	case []float32:
		o.f32 = append(o.f32, d)
	case float64:
		o.f64 = append(o.f64, []float64{d})
	case float32:
		o.f32 = append(o.f32, []float32{d})
	default:
		return fmt.Errorf("gx: %s: unsupported data %T", name, data)
	}
	if o.f64 != nil && o.f32 != nil {
		return fmt.Errorf("gx: %s: mixed float32 and float64 inputs", name)
	}
	return nil
}

// alloc returns a fresh zeroed output of the operands' dtype.
func (o *operands) alloc(shape ...int) *tensor.Dense {
	return tensor.New(tensor.WithShape(shape...), tensor.Of(o.dt))
}

// ApplyOp applies op to the nodes, recording any error in g.
func (g *Graph) apply(op G.Op, nodes ...*Node) *Node {
	if !g.ok(nodes...) {
		return nil
	}
	n, err := G.ApplyOp(op, nodes...)
	if err != nil {
		g.Fail(fmt.Errorf("gx: %v: %w", op, err))
		return nil
	}
	return n
}

func applyOp(op G.Op, nodes ...*Node) (*Node, error) { return G.ApplyOp(op, nodes...) }

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
