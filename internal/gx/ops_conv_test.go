package gx_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/attnzoo/attnzoo/internal/gradcheck"
	"github.com/attnzoo/attnzoo/internal/gx"
)

// convCases are small geometries: stride 1 and 2, padding 0 and 1, an odd
// and an even grid, a rectangular one, and the cnn encoder's even kernels.
var convCases = []gx.ConvGeom{
	{H: 6, W: 6, K: 3, Stride: 1, Pad: 1},
	{H: 5, W: 5, K: 3, Stride: 2, Pad: 1},
	{H: 6, W: 6, K: 3, Stride: 2, Pad: 1},
	{H: 5, W: 4, K: 3, Stride: 1, Pad: 0},
	{H: 4, W: 6, K: 2, Stride: 2, Pad: 1},
	{H: 8, W: 8, K: 4, Stride: 2, Pad: 1}, // the cnn encoder's default layer
	{H: 4, W: 4, K: 2, Stride: 2, Pad: 0}, // conv_kernel 2: non-overlapping windows
}

// directConv is the textbook convolution (cross-correlation, as every
// deep-learning library computes it), by a nested loop over the output and
// the kernel, independent of Im2Col's index map:
//
//	out[b, oy, ox, co] = bias[co] + Σ_{ky, kx, ci} W[co, (ky·k + kx)·Cin + ci] · X[b, oy·s − p + ky, ox·s − p + kx, ci]
//
// with the terms outside the image left out (zero padding). X is
// [B, H, W, Cin], out [B, Ho, Wo, Cout], both channels last.
func directConv(x, w, bias []float64, B, Cin, Cout int, geo gx.ConvGeom) []float64 {
	ho, wo := geo.Out()
	out := make([]float64, 0, B*ho*wo*Cout)
	for b := 0; b < B; b++ {
		for oy := 0; oy < ho; oy++ {
			for ox := 0; ox < wo; ox++ {
				for co := 0; co < Cout; co++ {
					s := bias[co]
					for ky := 0; ky < geo.K; ky++ {
						for kx := 0; kx < geo.K; kx++ {
							y, xx := oy*geo.Stride-geo.Pad+ky, ox*geo.Stride-geo.Pad+kx
							if y < 0 || y >= geo.H || xx < 0 || xx >= geo.W {
								continue
							}
							for ci := 0; ci < Cin; ci++ {
								s += w[co*geo.K*geo.K*Cin+(ky*geo.K+kx)*Cin+ci] * x[((b*geo.H+y)*geo.W+xx)*Cin+ci]
							}
						}
					}
					out = append(out, s)
				}
			}
		}
	}
	return out
}

func randVec(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return v
}

// convLayer is ReLU(AddBias(Linear(Im2Col(X), W), b)) and its pre-activation.
func convLayer(g *gx.Graph, X, W, b *gx.Node, geo gx.ConvGeom) (out, pre *gx.Node) {
	pre = g.AddBias(g.Linear(g.Im2Col(X, geo), W, 0), b)
	return g.ReLU(pre), pre
}

// TestConvMatchesDirect: Im2Col + Linear + AddBias equals the direct
// convolution (float64 to 1e-12, float32 to 1e-5), and the ReLU layer is
// max(·, 0) of it exactly.
func TestConvMatchesDirect(t *testing.T) {
	const B, Cin, Cout = 2, 2, 3
	for _, geo := range convCases {
		for _, dt := range []struct {
			name string
			dt   any
			tol  float64
		}{{"float64", gx.Float64, 1e-12}, {"float32", gx.Float32, 1e-5}} {
			t.Run(geo.String()+"/"+dt.name, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(1, uint64(geo.H*100+geo.Stride*10+geo.Pad)))
				KK := geo.K * geo.K
				x, w, bias := randVec(rng, B*geo.H*geo.W*Cin), randVec(rng, Cout*KK*Cin), randVec(rng, Cout)
				want := directConv(x, w, bias, B, Cin, Cout, geo)
				g := gx.NewGraph(gx.Float64)
				if dt.name == "float32" {
					g = gx.NewGraph(gx.Float32)
				}
				out, pre := convLayer(g, g.Const("X", x, B, geo.H*geo.W, Cin), g.Const("W", w, Cout, KK*Cin), g.Const("b", bias, Cout), geo)
				g.Watch(out)
				g.Watch(pre)
				if err := g.Run(); err != nil {
					t.Fatal(err)
				}
				ho, wo := geo.Out()
				if s := pre.Shape(); s[0] != B || s[1] != ho*wo || s[2] != Cout {
					t.Fatalf("shape %v, want [%d %d %d]", s, B, ho*wo, Cout)
				}
				p, _ := g.Value(pre)
				y, _ := g.Value(out)
				worst := 0.0
				for i := range want {
					worst = math.Max(worst, math.Abs(p[i]-want[i]))
					if y[i] != math.Max(p[i], 0) {
						t.Fatalf("ReLU entry %d: %v of %v", i, y[i], p[i])
					}
				}
				if worst > dt.tol {
					t.Errorf("worst difference from the direct convolution %.3g > %g", worst, dt.tol)
				}
			})
		}
	}
}

// TestConvGradients: the whole conv layer's gradients with respect to X, W
// and b against central finite differences, every entry, float64. The
// fixed seeds keep every pre-activation well away from ReLU's kink (checked:
// a difference across the kink would not be a derivative).
func TestConvGradients(t *testing.T) {
	const B, Cin, Cout = 2, 2, 3
	for _, geo := range convCases {
		t.Run(geo.String(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(5, uint64(geo.H*100+geo.Stride*10+geo.Pad)))
			KK := geo.K * geo.K
			X := randParam(rng, "X", B, geo.H*geo.W, Cin)
			W := randParam(rng, "W", Cout, KK*Cin)
			b := randParam(rng, "b", Cout)
			// pre-activations within 1e-3 of 0 would put the kink inside the stencil
			pre := directConv(X.Float64s(), W.Float64s(), b.Float64s(), B, Cin, Cout, geo)
			for i, v := range pre {
				if math.Abs(v) < 1e-3 {
					t.Fatalf("pre-activation %d is %g: pick another seed", i, v)
				}
			}
			build := func(g *gx.Graph) *gx.Node {
				out, _ := convLayer(g, g.Bind(X), g.Bind(W), g.Bind(b), geo)
				return cost(g, out, rand.New(rand.NewPCG(3, 3)))
			}
			gradcheck.Require(t, build, []*gx.Param{X, W, b}, gradcheck.Options{}, 1e-3)
		})
	}
}

// TestConvReLUGradient: ReLU alone, through a tanh so the gradient reaching
// it varies, on a [2, 5] input and on a scalar.
func TestConvReLUGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	x := randParam(rng, "x", 2, 5)
	build := func(g *gx.Graph) *gx.Node { return cost(g, g.Tanh(g.ReLU(g.Bind(x))), rand.New(rand.NewPCG(3, 3))) }
	es := gradcheck.Require(t, build, []*gx.Param{x}, gradcheck.Options{}, 1e-3)
	zeros := 0
	for _, e := range es {
		if x.At(e.Index) < 0 {
			zeros++
			if e.Analytic != 0 {
				t.Errorf("x[%d] = %g < 0 has gradient %g", e.Index, x.At(e.Index), e.Analytic)
			}
		}
	}
	if zeros == 0 {
		t.Error("no negative input: the test does not exercise ReLU's zero side")
	}
}

// TestConvFloat32MatchesFloat64: a two-layer stack (stride 2 then 1) and
// its input gradient agree between the dtypes.
func TestConvFloat32MatchesFloat64(t *testing.T) {
	const B, C0, C1, C2 = 3, 3, 4, 5
	g1 := gx.ConvGeom{H: 8, W: 8, K: 3, Stride: 2, Pad: 1}
	g2 := gx.ConvGeom{H: 4, W: 4, K: 3, Stride: 1, Pad: 1}
	rng := rand.New(rand.NewPCG(2, 2))
	x, w1, b1 := randVec(rng, B*64*C0), randVec(rng, C1*9*C0), randVec(rng, C1)
	w2, b2 := randVec(rng, C2*9*C1), randVec(rng, C2)
	run := func(f32 bool) ([]float64, []float64) {
		g := gx.NewGraph(gx.Float64)
		if f32 {
			g = gx.NewGraph(gx.Float32)
		}
		X := g.Const("X", x, B, 64, C0)
		h, _ := convLayer(g, X, g.Const("W1", w1, C1, 9*C0), g.Const("b1", b1, C1), g1)
		y, _ := convLayer(g, h, g.Const("W2", w2, C2, 9*C1), g.Const("b2", b2, C2), g2)
		g.Watch(y)
		dx := g.Grad(g.DotAll(y, g.Const("r", randVec(rand.New(rand.NewPCG(4, 4)), B*16*C2), B, 16, C2)), X)
		if err := g.Run(); err != nil {
			t.Fatal(err)
		}
		a, _ := g.Value(y)
		d, _ := g.Value(dx[0])
		return a, d
	}
	y64, d64 := run(false)
	y32, d32 := run(true)
	for i := range y64 {
		if math.Abs(y64[i]-y32[i]) > 1e-5*math.Max(1, math.Abs(y64[i])) {
			t.Errorf("output %d: float64 %v, float32 %v", i, y64[i], y32[i])
		}
	}
	for i := range d64 {
		if math.Abs(d64[i]-d32[i]) > 1e-5*math.Max(1, math.Abs(d64[i])) {
			t.Errorf("input gradient %d: float64 %v, float32 %v", i, d64[i], d32[i])
		}
	}
}

// TestConvGeometryHashes: two Im2Cols of one input whose geometries differ
// but whose outputs have the same shape (5×5, k3: stride 1 pad 0 and stride
// 2 pad 1 both give 3×3) are two nodes: the graph compiles (no hash
// collision) and each matches its direct convolution.
func TestConvGeometryHashes(t *testing.T) {
	geos := []gx.ConvGeom{{H: 5, W: 5, K: 3, Stride: 1, Pad: 0}, {H: 5, W: 5, K: 3, Stride: 2, Pad: 1}}
	rng := rand.New(rand.NewPCG(6, 6))
	x, w := randVec(rng, 25*2), randVec(rng, 9*2)
	g := gx.NewGraph(gx.Float64)
	X, W := g.Const("X", x, 1, 25, 2), g.Const("W", w, 1, 18)
	var outs []*gx.Node
	for _, geo := range geos {
		outs = append(outs, g.Watch(g.Linear(g.Im2Col(X, geo), W, 0)))
	}
	if !outs[0].Shape().Eq(outs[1].Shape()) {
		t.Fatalf("shapes %v and %v: the test wants equal shapes", outs[0].Shape(), outs[1].Shape())
	}
	if err := g.Run(); err != nil {
		t.Fatal(err)
	}
	for i, geo := range geos {
		got, _ := g.Value(outs[i])
		want := directConv(x, w, []float64{0}, 1, 2, 1, geo)
		for j := range want {
			if math.Abs(got[j]-want[j]) > 1e-12 {
				t.Fatalf("%v: entry %d is %v, want %v", geo, j, got[j], want[j])
			}
		}
	}
}

// TestConvShapeErrors: a grid that does not match X's positions, or an
// impossible geometry, is an error naming the sizes, not a panic.
func TestConvShapeErrors(t *testing.T) {
	for _, geo := range []gx.ConvGeom{
		{H: 4, W: 4, K: 3, Stride: 1, Pad: 1}, // 16 positions, X has 20
		{H: 4, W: 5, K: 3, Stride: 0, Pad: 1},
		{H: 1, W: 5, K: 5, Stride: 1, Pad: 1},
	} {
		g := gx.NewGraph(gx.Float64)
		if n := g.Im2Col(g.Input("X", 2, 20, 3), geo); n != nil || g.Err() == nil {
			t.Errorf("%v accepted", geo)
			continue
		}
		if msg := g.Err().Error(); !strings.Contains(msg, "Im2Col") || !strings.Contains(msg, geo.String()) {
			t.Errorf("%v: error %q", geo, msg)
		}
	}
}
