package cells

import (
	"fmt"
	"hash"
	"hash/fnv"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/attnzoo/attnzoo/internal/gx"
)

// colsOp takes columns [start, end) of the last axis:
//
//	cols:  x [N..., width]      → x[..., start:end]   [N..., end−start]
//	pad:   g [N..., end−start]  → [N..., width], g in columns [start, end), 0 elsewhere
//
// Each is the other's gradient. It splits a stacked gate pre-activation
// [B, G·H] into its gates. gorgonia's Slice is not used: it hashes its
// bounds as single bytes, so slices whose bounds differ by a multiple of 256
// are merged into one node (docs/gorgonia.md, case 1). The hash here
// writes every parameter as a full decimal integer.
type colsOp struct {
	start, end, width int
	dims              int // dimensions of input and output
	pad               bool
	buf               *tensor.Dense // the output, reused from run to run (as gx's ops do)
}

// cols returns x[..., start:end] for x [N..., width], recording any error in g.
func cols(g *gx.Graph, x *gx.Node, start, end int) *gx.Node {
	if g.Err() != nil {
		return nil
	}
	if x == nil {
		g.Fail(fmt.Errorf("cells: cols: nil node"))
		return nil
	}
	sh := x.Shape()
	if len(sh) == 0 {
		g.Fail(fmt.Errorf("cells: cols: input is a scalar"))
		return nil
	}
	op := &colsOp{start: start, end: end, width: sh[len(sh)-1], dims: len(sh)}
	n, err := G.ApplyOp(op, x)
	if err != nil {
		g.Fail(fmt.Errorf("cells: %v: %w", op, err))
		return nil
	}
	return n
}

func (op *colsOp) Arity() int { return 1 }

func (op *colsOp) Type() hm.Type {
	t := G.TensorType{Dims: op.dims, Of: hm.TypeVariable('a')}
	return hm.NewFnType(t, t)
}

func (op *colsOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, ok := in[0].(tensor.Shape)
	if !ok || len(s) != op.dims {
		return nil, fmt.Errorf("cells: %v: input has no %d-dimensional shape (%v)", op, op.dims, in[0])
	}
	if op.start < 0 || op.end <= op.start || op.end > op.width {
		return nil, fmt.Errorf("cells: %v: want 0 ≤ start < end ≤ width", op)
	}
	want, out := op.width, op.end-op.start
	if op.pad {
		want, out = out, want
	}
	if s[len(s)-1] != want {
		return nil, fmt.Errorf("cells: %v: input shape %v, want last axis %d", op, s, want)
	}
	o := s.Clone()
	o[len(o)-1] = out
	return o, nil
}

func (op *colsOp) Do(vs ...G.Value) (G.Value, error) {
	t, ok := vs[0].(tensor.Tensor)
	if !ok {
		return nil, fmt.Errorf("cells: %v: input is %T, want a tensor", op, vs[0])
	}
	shape, err := op.InferShape(t.Shape())
	if err != nil {
		return nil, err
	}
	if op.buf == nil || op.buf.Dtype() != t.Dtype() || !op.buf.Shape().Eq(shape) {
		op.buf = tensor.New(tensor.WithShape(shape...), tensor.Of(t.Dtype()))
	} else if op.pad {
		op.buf.Zero() // pad writes only its columns
	}
	out := op.buf
	d, ok := t.(*tensor.Dense)
	if !ok {
		return nil, fmt.Errorf("cells: %v: input is %T, want a dense tensor", op, t)
	}
	switch t.Dtype() {
	case tensor.Float64:
		copyCols(d.Float64s(), out.Float64s(), op.start, op.end, op.width, op.pad)
	case tensor.Float32:
		copyCols(d.Float32s(), out.Float32s(), op.start, op.end, op.width, op.pad)
	default:
		return nil, fmt.Errorf("cells: %v: unsupported dtype %v", op, t.Dtype())
	}
	return out, nil
}

func copyCols[T float32 | float64](x, out []T, start, end, width int, pad bool) {
	k := end - start
	rows := len(out) / k
	if pad {
		rows = len(x) / k
	}
	for r := 0; r < rows; r++ {
		if pad {
			copy(out[r*width+start:r*width+end], x[r*k:(r+1)*k])
		} else {
			copy(out[r*k:(r+1)*k], x[r*width+start:r*width+end])
		}
	}
}

func (op *colsOp) DiffWRT(int) []bool { return []bool{true} }

func (op *colsOp) SymDiff(_ G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	back := *op
	back.pad = !op.pad
	back.buf = nil
	n, err := G.ApplyOp(&back, grad)
	return G.Nodes{n}, err
}

func (op *colsOp) ReturnsPtr() bool     { return false }
func (op *colsOp) CallsExtern() bool    { return false }
func (op *colsOp) OverwritesInput() int { return -1 }

func (op *colsOp) String() string {
	name := "Cols"
	if op.pad {
		name = "PadCols"
	}
	return fmt.Sprintf("%s{%d:%d of %d}", name, op.start, op.end, op.width)
}

// WriteHash writes every parameter in full: an op whose hash leaves one
// out is merged with a different op of the same inputs.
func (op *colsOp) WriteHash(h hash.Hash) {
	fmt.Fprintf(h, "attnzoo.cells.cols{start=%d,end=%d,width=%d,dims=%d,pad=%t}", op.start, op.end, op.width, op.dims, op.pad)
}

func (op *colsOp) Hashcode() uint32 {
	h := fnv.New32a()
	op.WriteHash(h)
	return h.Sum32()
}
