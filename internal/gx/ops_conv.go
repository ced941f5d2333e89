package gx

import (
	"fmt"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Convolution as a gather and a matrix product (im2col, as Caffe does it):
// a k×k convolution with stride s and zero padding p of X [B, H·W, C]
// (positions row-major, channels last) is
//
//	Im2Col(X)                     → [B, Ho·Wo, k·k·C]
//	conv(X) = Linear(Im2Col(X), W [Cout, k·k·C]) + b
//
// where row (oy, ox) of Im2Col(X) is the k×k neighbourhood whose top-left
// corner is (oy·s − p, ox·s − p), ordered (ky, kx, c), zero outside the
// image, and Ho = ⌊(H + 2p − k)/s⌋ + 1 (Wo likewise). Its gradient
// scatters back (col2imOp): ∂X[b, i] = Σ ∂Col[b, o, (ky, kx)] over every
// output o whose neighbourhood reads position i at (ky, kx).
//
//	ReLU(x) = max(x, 0)           ∂x = g ⊙ [y > 0]  (a mapped kind: elementwise.go)
//
// The position each (o, ky, kx) reads is computed once per op, not per run.

// ConvGeom is the geometry of a 2-D convolution over an H×W grid: a K×K
// kernel, Stride and zero padding Pad on every side.
type ConvGeom struct{ H, W, K, Stride, Pad int }

// Out is the output grid, Ho×Wo.
func (c ConvGeom) Out() (ho, wo int) {
	return (c.H+2*c.Pad-c.K)/c.Stride + 1, (c.W+2*c.Pad-c.K)/c.Stride + 1
}

func (c ConvGeom) String() string {
	return fmt.Sprintf("%dx%d k%d s%d p%d", c.H, c.W, c.K, c.Stride, c.Pad)
}

func (c ConvGeom) check() error {
	if c.H < 1 || c.W < 1 || c.K < 1 || c.Stride < 1 || c.Pad < 0 || c.Pad >= c.K {
		return fmt.Errorf("gx: Im2Col: geometry %v: want H, W, K, stride ≥ 1 and 0 ≤ pad < K", c)
	}
	if c.H+2*c.Pad < c.K || c.W+2*c.Pad < c.K {
		return fmt.Errorf("gx: Im2Col: geometry %v: the %d×%d kernel does not fit the padded %d×%d grid", c, c.K, c.K, c.H+2*c.Pad, c.W+2*c.Pad)
	}
	return nil
}

// sources is the input position each (o, ky, kx) reads, row-major over
// (o, ky, kx); −1 where the neighbourhood leaves the image.
func (c ConvGeom) sources() []int32 {
	ho, wo := c.Out()
	src := make([]int32, 0, ho*wo*c.K*c.K)
	for oy := 0; oy < ho; oy++ {
		for ox := 0; ox < wo; ox++ {
			for ky := 0; ky < c.K; ky++ {
				for kx := 0; kx < c.K; kx++ {
					y, x := oy*c.Stride-c.Pad+ky, ox*c.Stride-c.Pad+kx
					if y < 0 || y >= c.H || x < 0 || x >= c.W {
						src = append(src, -1)
					} else {
						src = append(src, int32(y*c.W+x))
					}
				}
			}
		}
	}
	return src
}

type im2colOp struct {
	base
	geo ConvGeom
	src []int32 // geo.sources(), shared with the gradient op
}

// col2imOp scatters [B, Ho·Wo, k·k·C] back onto [B, H·W, C].
type col2imOp struct {
	base
	geo ConvGeom
	src []int32
}

// Im2Col gathers every k×k neighbourhood of X [B, H·W, C] into a row of
// [B, Ho·Wo, k·k·C] (see ConvGeom; zeros outside the image).
func (g *Graph) Im2Col(X *Node, geo ConvGeom) *Node {
	if !g.ok(X) {
		return nil
	}
	if err := geo.check(); err != nil {
		g.Fail(err)
		return nil
	}
	return g.apply(&im2colOp{base{name: "Im2Col", args: geo.String(), in: []int{3}, out: 3}, geo, geo.sources()}, X)
}

// ReLU is the elementwise max(x, 0).
func (g *Graph) ReLU(x *Node) *Node { return g.mapped(mapReLU, x) }

func (op *im2colOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapes(in)
	if err != nil {
		return nil, err
	}
	if len(s[0]) != 3 || s[0][1] != op.geo.H*op.geo.W {
		return nil, fmt.Errorf("gx: Im2Col %v: want X [B, %d·%d, C], got shape %v", op.geo, op.geo.H, op.geo.W, s[0])
	}
	ho, wo := op.geo.Out()
	return tensor.Shape{s[0][0], ho * wo, op.geo.K * op.geo.K * s[0][2]}, nil
}

// im2col copies, per batch row, channel vector src[r] of x (or zeros) to
// row r of out, r over (o, ky, kx).
func im2col[T float](x, out []T, src []int32, L, C int) {
	R := len(src)
	for b := 0; b*L*C < len(x); b++ {
		xb, ob := x[b*L*C:(b+1)*L*C], out[b*R*C:(b+1)*R*C]
		for r, i := range src {
			o := ob[r*C : (r+1)*C]
			if i < 0 {
				clear(o)
			} else {
				copy(o, xb[int(i)*C:int(i+1)*C])
			}
		}
	}
}

func (op *im2colOp) Do(vs ...G.Value) (G.Value, error) {
	o, err := op.getOperands(vs)
	if err != nil {
		return nil, err
	}
	B, L, C := o.sh[0][0], o.sh[0][1], o.sh[0][2]
	out := o.allocDirty(B, len(op.src)/(op.geo.K*op.geo.K), op.geo.K*op.geo.K*C)
	if o.f64 != nil {
		im2col(o.f64[0], out.Float64s(), op.src, L, C)
	} else {
		im2col(o.f32[0], out.Float32s(), op.src, L, C)
	}
	return out, nil
}

func (op *im2colOp) DiffWRT(int) []bool { return []bool{true} }

func (op *im2colOp) SymDiff(_ G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	n, err := op.applyOp(&col2imOp{base{name: "Col2Im", args: op.geo.String(), in: []int{3}, out: 3}, op.geo, op.src}, grad)
	return G.Nodes{n}, err
}

func (op *col2imOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapes(in)
	if err != nil {
		return nil, err
	}
	KK := op.geo.K * op.geo.K
	if len(s[0]) != 3 || s[0][1]*KK != len(op.src) || s[0][2]%KK != 0 {
		return nil, fmt.Errorf("gx: Col2Im %v: gradient of shape %v", op.geo, s[0])
	}
	return tensor.Shape{s[0][0], op.geo.H * op.geo.W, s[0][2] / KK}, nil
}

// col2im adds row r of g to channel vector src[r] of out, per batch row.
func col2im[T float](g, out []T, src []int32, L, C int) {
	R := len(src)
	for b := 0; b*R*C < len(g); b++ {
		gb, ob := g[b*R*C:(b+1)*R*C], out[b*L*C:(b+1)*L*C]
		for r, i := range src {
			if i < 0 {
				continue
			}
			d, s := ob[int(i)*C:int(i+1)*C], gb[r*C:(r+1)*C]
			for c, v := range s {
				d[c] += v
			}
		}
	}
}

func (op *col2imOp) Do(vs ...G.Value) (G.Value, error) {
	o, err := op.getOperands(vs)
	if err != nil {
		return nil, err
	}
	B, L, C := o.sh[0][0], op.geo.H*op.geo.W, o.sh[0][2]/(op.geo.K*op.geo.K)
	out := o.alloc(B, L, C)
	if o.f64 != nil {
		col2im(o.f64[0], out.Float64s(), op.src, L, C)
	} else {
		col2im(o.f32[0], out.Float32s(), op.src, L, C)
	}
	return out, nil
}
