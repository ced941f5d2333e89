package gx_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/attnzoo/attnzoo/internal/gradcheck"
	"github.com/attnzoo/attnzoo/internal/gx"
)

func randParam(rng *rand.Rand, name string, shape ...int) *gx.Param {
	p := gx.NewParam(name, gx.Float64, shape...)
	p.Uniform(rng, 1)
	return p
}

// cost projects an output onto fixed random weights, so every entry of the
// output reaches the cost with a different coefficient.
func cost(g *gx.Graph, out *gx.Node, rng *rand.Rand) *gx.Node {
	if out == nil {
		return nil
	}
	r := gx.NewParam(fmt.Sprintf("proj%d", out.ID()), gx.Float64, out.Shape()...)
	r.Uniform(rng, 1)
	return g.DotAll(out, g.Bind(r))
}

// TestOpGradients checks every op's gradient against central finite
// differences, entry by entry, in float64.
func TestOpGradients(t *testing.T) {
	const B, S, D, A = 2, 3, 4, 5
	rng := rand.New(rand.NewPCG(7, 7))
	X := randParam(rng, "X", B, S, D)
	y := randParam(rng, "y", B, D)
	w := randParam(rng, "w", B, S)
	W := randParam(rng, "W", A, D)
	Wx := randParam(rng, "Wx", S+2, D) // more rows than used
	P := randParam(rng, "P", B, S, A)
	u := randParam(rng, "u", B, A)
	c := randParam(rng, "c", A)
	v := randParam(rng, "v", A)
	gamma := randParam(rng, "gamma", 1)
	c4 := randParam(rng, "c4", D)
	Ev := randParam(rng, "Ev", 7, D)
	ids := gx.NewParam("ids", gx.Float64, 5)
	ids.Set([]float64{3, 0, 3, 6, 1}) // repeated id 3 accumulates
	tgt := gx.NewParam("tgt", gx.Float64, B)
	tgt.Set([]float64{4, 1})
	tmask := gx.NewParam("tmask", gx.Float64, B)
	tmask.Set([]float64{1, 0.5})
	u2 := randParam(rng, "u2", B, A)
	const Hg = 3 // GRU hidden size
	x1 := randParam(rng, "x1", B, 3*Hg)
	x2 := randParam(rng, "x2", B, 3*Hg)
	hh := randParam(rng, "hh", B, 3*Hg)
	b3 := randParam(rng, "b3", 3*Hg)
	bhn := randParam(rng, "bhn", Hg)
	gates := randParam(rng, "gates", B, 4*Hg)
	h0 := randParam(rng, "h0", B, Hg)
	mask := gx.NewParam("mask", gx.Float64, B, S)
	mask.Set([]float64{1, 1, 0, 0, 1, 0})

	cases := []struct {
		name   string
		params []*gx.Param
		out    func(g *gx.Graph) *gx.Node
	}{
		{"BMV", []*gx.Param{X, y}, func(g *gx.Graph) *gx.Node { return g.BMV(g.Bind(X), g.Bind(y), 0.7) }},
		{"WSum", []*gx.Param{w, X}, func(g *gx.Graph) *gx.Node { return g.WSum(g.Bind(w), g.Bind(X), 1.3) }},
		{"Outer", []*gx.Param{w, y}, func(g *gx.Graph) *gx.Node { return g.Outer(g.Bind(w), g.Bind(y), -0.4) }},
		{"Linear3D", []*gx.Param{X, W}, func(g *gx.Graph) *gx.Node { return g.Linear(g.Bind(X), g.Bind(W), 0) }},
		{"Linear2D", []*gx.Param{y, W}, func(g *gx.Graph) *gx.Node { return g.Linear(g.Bind(y), g.Bind(W), 0) }},
		{"LinearPrefix", []*gx.Param{y, Wx}, func(g *gx.Graph) *gx.Node { return g.Linear(g.Bind(y), g.Bind(Wx), S) }},
		{"Additive", []*gx.Param{P, u, c, v}, func(g *gx.Graph) *gx.Node {
			return g.Additive(g.Bind(P), g.Bind(u), g.Bind(c), g.Bind(v))
		}},
		{"MaskedSoftmax", []*gx.Param{w}, func(g *gx.Graph) *gx.Node { return g.MaskedSoftmax(g.Bind(w), g.Bind(mask)) }},
		{"Sparsemax", []*gx.Param{w}, func(g *gx.Graph) *gx.Node { return g.Sparsemax(g.Bind(w), g.Bind(mask)) }},
		{"MaskFill", []*gx.Param{w}, func(g *gx.Graph) *gx.Node { return g.MaskFill(g.Bind(w), g.Bind(mask), -3) }},
		{"L2Normalize", []*gx.Param{X}, func(g *gx.Graph) *gx.Node { return g.L2Normalize(g.Bind(X), 1e-12) }},
		{"ScaleBy", []*gx.Param{X, gamma}, func(g *gx.Graph) *gx.Node { return g.ScaleBy(g.Bind(X), g.Bind(gamma)) }},
		{"AddBias", []*gx.Param{X, c4}, func(g *gx.Graph) *gx.Node { return g.AddBias(g.Bind(X), g.Bind(c4)) }},
		{"Elementwise", []*gx.Param{u, u2}, func(g *gx.Graph) *gx.Node {
			a, b := g.Bind(u), g.Bind(u2)
			// a GRU-like blend: (a − σ(b))⊙tanh(a) + σ(b)⊙b
			z := g.Sigmoid(b)
			return g.Sum(g.Mul(g.Sub(a, z), g.Tanh(a)), g.Mul(z, b))
		}},
		{"Embed", []*gx.Param{Ev}, func(g *gx.Graph) *gx.Node { return g.Embed(g.Bind(Ev), g.Bind(ids)) }},
		{"StackTake", []*gx.Param{y, u}, func(g *gx.Graph) *gx.Node {
			a, b := g.Bind(y), g.Bind(u)
			st := g.Stack(g.SliceLast(b, 0, D), a, g.SliceLast(b, 1, D+1))
			return g.ConcatLast(g.TakeStep(st, 1), g.TakeStep(st, 2))
		}},
		{"StackRowsRows", []*gx.Param{y, u}, func(g *gx.Graph) *gx.Node {
			a, b := g.Bind(y), g.Bind(u)
			st := g.StackRows(g.SliceLast(b, 0, D), a, g.SliceLast(b, 1, D+1)) // [3B, D]
			return g.ConcatLast(g.Rows(st, B, 2*B), g.Rows(st, 1, 1+B))
		}},
		{"ConcatLast3D", []*gx.Param{X, P}, func(g *gx.Graph) *gx.Node { return g.ConcatLast(g.Bind(X), g.Bind(P)) }},
		{"SoftmaxXent", []*gx.Param{u}, func(g *gx.Graph) *gx.Node {
			return g.ScaleBy(g.Bind(X), g.SoftmaxXent(g.Bind(u), g.Bind(tgt), g.Bind(tmask), 0.5))
		}},
		{"SmoothedXent", []*gx.Param{u}, func(g *gx.Graph) *gx.Node {
			return g.ScaleBy(g.Bind(X), g.SmoothedXent(g.Bind(u), g.Bind(tgt), g.Bind(tmask), g.Const("eps", []float64{0.2}, 1), 0.5))
		}},
		{"GRUGates", []*gx.Param{x1, x2, hh, b3, bhn}, func(g *gx.Graph) *gx.Node {
			return g.GRUGates([]*gx.Node{g.Bind(x1), g.Bind(x2)}, g.Bind(hh), g.Bind(b3), g.Bind(bhn))
		}},
		{"GRUBlend", []*gx.Param{gates, h0}, func(g *gx.Graph) *gx.Node { return g.GRUBlend(g.Bind(gates), g.Bind(h0)) }},
		{"GRUStep", []*gx.Param{x1, hh, b3, bhn, h0}, func(g *gx.Graph) *gx.Node {
			return g.GRUBlend(g.GRUGates([]*gx.Node{g.Bind(x1)}, g.Bind(hh), g.Bind(b3), g.Bind(bhn)), g.Bind(h0))
		}},
		{"BMVHeads", []*gx.Param{X, y}, func(g *gx.Graph) *gx.Node { return g.BMVHeads(g.Bind(X), g.Bind(y), 2, 0.7) }},
		{"HeadMean", []*gx.Param{w}, func(g *gx.Graph) *gx.Node { return g.HeadMean(g.Bind(w), 2) }},
		{"RepeatRows", []*gx.Param{w}, func(g *gx.Graph) *gx.Node { return g.RepeatRows(g.Bind(w), 3) }},
		{"HeadsChain", []*gx.Param{X, y}, func(g *gx.Graph) *gx.Node {
			// two-head attention: WSum(HeadMean(softmax per head of BMVHeads(X, y)), X)
			xs := g.Bind(X)
			s := g.BMVHeads(xs, g.Bind(y), 2, 0.5)
			return g.WSum(g.HeadMean(g.MaskedSoftmax(s, g.RepeatRows(g.Bind(mask), 2)), 2), xs, 1)
		}},
		{"Chain", []*gx.Param{X, y, W}, func(g *gx.Graph) *gx.Node {
			// context of a general-score attention: WSum(softmax(BMV(X Wᵀ, y)), X)
			xs := g.Bind(X)
			s := g.BMV(g.Linear(xs, g.Bind(W), D), g.Bind(y), 1)
			return g.WSum(g.MaskedSoftmax(s, g.Bind(mask)), xs, 1)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// the same projection in both graphs gradcheck builds
			build := func(g *gx.Graph) *gx.Node { return cost(g, tc.out(g), rand.New(rand.NewPCG(3, 3))) }
			gradcheck.Require(t, build, tc.params, gradcheck.Options{}, 1e-3)
		})
	}
}

// TestMaskedSoftmaxValues pins the forward values: softmax of [1, 2, 3] with
// the last key masked is [1, e]/(1+e) = [0.2689414213699951, 0.7310585786300049];
// a row whose only unmasked key is its first gets weight exactly 1 there
// even when its scores lie far below element [0,0] (gorgonia's SoftMax gives
// NaN there: docs/gorgonia.md, case 3); an all-masked row gets zeros.
func TestMaskedSoftmaxValues(t *testing.T) {
	for _, dt := range []struct {
		name string
		tol  float64
	}{{"float64", 1e-15}, {"float32", 1e-7}} {
		t.Run(dt.name, func(t *testing.T) {
			g := gx.NewGraph(gx.Float64)
			if dt.name == "float32" {
				g = gx.NewGraph(gx.Float32)
			}
			s := g.Const("s", []float64{1, 2, 3, -2000, -2001, 5, 1, 1, 1}, 3, 3)
			m := g.Const("m", []float64{1, 1, 0, 1, 0, 0, 0, 0, 0}, 3, 3)
			w := g.Watch(g.MaskedSoftmax(s, m))
			if err := g.Run(); err != nil {
				t.Fatal(err)
			}
			got, _ := g.Value(w)
			want := []float64{1 / (1 + math.E), math.E / (1 + math.E), 0, 1, 0, 0, 0, 0, 0}
			for i := range want {
				if math.Abs(got[i]-want[i]) > dt.tol || (want[i] == 0 && got[i] != 0) {
					t.Errorf("w[%d] = %v, want %v", i, got[i], want[i])
				}
			}
		})
	}
}

// TestFloat32MatchesFloat64 runs the attention chain in both dtypes.
func TestFloat32MatchesFloat64(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	const B, S, D = 3, 5, 4
	xs := make([]float64, B*S*D)
	ys := make([]float64, B*D)
	for i := range xs {
		xs[i] = rng.NormFloat64()
	}
	for i := range ys {
		ys[i] = rng.NormFloat64()
	}
	run := func(dt any) []float64 {
		g := gx.NewGraph(gx.Float64)
		if dt == gx.Float32 {
			g = gx.NewGraph(gx.Float32)
		}
		X := g.Const("X", xs, B, S, D)
		y := g.Const("y", ys, B, D)
		m := g.Const("m", []float64{1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 0}, B, S)
		P := g.Linear(X, g.Const("W", xs[:D*D], D, D), 0)
		s := g.Additive(P, g.Linear(y, g.Const("Wq", xs[D*D:2*D*D], D, D), 0), g.Const("c", ys[:D], D), g.Const("v", ys[D:2*D], D))
		out := g.Watch(g.WSum(g.MaskedSoftmax(s, m), g.L2Normalize(X, 1e-12), 1))
		if err := g.Run(); err != nil {
			t.Fatal(err)
		}
		v, _ := g.Value(out)
		return v
	}
	a, b := run(gx.Float64), run(gx.Float32)
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-5 {
			t.Errorf("entry %d: float64 %v, float32 %v", i, a[i], b[i])
		}
	}
}

// TestShapeErrors checks that a wrong shape is an error naming the shapes,
// not a panic.
func TestShapeErrors(t *testing.T) {
	g := gx.NewGraph(gx.Float64)
	X := g.Input("X", 2, 3, 4)
	y := g.Input("y", 2, 5)
	if n := g.BMV(X, y, 1); n != nil {
		t.Fatal("BMV accepted mismatched sizes")
	}
	if g.Err() == nil {
		t.Fatal("no error recorded")
	}
	t.Log(g.Err())
}

// TestSoftmaxXentValue: logits [0, ln 3] against target 1: softmax is
// [1/4, 3/4], so the loss is −ln(3/4) = 0.2876820724517809; a second row
// with mask 0 adds nothing; c = 2 doubles it.
func TestSoftmaxXentValue(t *testing.T) {
	g := gx.NewGraph(gx.Float64)
	z := g.Const("z", []float64{0, math.Log(3), 100, -100}, 2, 2)
	y := g.Const("y", []float64{1, 1}, 2)
	m := g.Const("m", []float64{1, 0}, 2)
	l := g.Watch(g.SoftmaxXent(z, y, m, 2))
	ls := g.Watch(g.LogSoftmax(z))
	if err := g.Run(); err != nil {
		t.Fatal(err)
	}
	v, _ := g.Value(l)
	if want := -2 * math.Log(0.75); math.Abs(v[0]-want) > 1e-15 {
		t.Errorf("loss %v, want %v", v[0], want)
	}
	lv, _ := g.Value(ls)
	if math.Abs(lv[0]-math.Log(0.25)) > 1e-15 || math.Abs(lv[3]+200) > 1e-12 {
		t.Errorf("log softmax %v", lv)
	}
}

// TestSmoothedXentTorch: the loss and gradient of label smoothing against
// PyTorch 1.13's, float64, with the logits copied (rows 1 and 2 targets 2
// and 4, row 3 padding: mask 1/2, 1/2, 0 as seq2seq fills it, the mean
// over the 2 tokens):
//
//	z = torch.tensor([[0.5, -1.25, 2.0, 0.0, 0.75], [-0.5, 1.5, 0.25, -2.0, 1.0],
//	                  [3.0, 0.0, -1.0, 0.5, 2.0]], dtype=torch.float64, requires_grad=True)
//	loss = F.cross_entropy(z, torch.tensor([2, 4, 0]), ignore_index=0, label_smoothing=0.1)
//	loss.backward()   # loss.item(), z.grad
//
// With ε = 0 in the same graph the loss is the plain cross-entropy,
// F.cross_entropy(z, y, ignore_index=0) = 0.8715154033442956.
func TestSmoothedXentTorch(t *testing.T) {
	zp := gx.NewParam("z", gx.Float64, 3, 5)
	copy(zp.Value.Data().([]float64), []float64{0.5, -1.25, 2.0, 0.0, 0.75, -0.5, 1.5, 0.25, -2.0, 1.0, 3.0, 0.0, -1.0, 0.5, 2.0})
	for _, c := range []struct {
		eps, loss float64
		grad      []float64
	}{
		{0.1, 0.9990154033442956, []float64{
			0.05626010271430212, 0.0015142793420958207, -0.16304282186583474, 0.03018878381193251, 0.07507965599750432,
			0.022871218034832205, 0.2328872740995561, 0.05958836912581863, -0.0026654398556139325, -0.31268142140459304,
			0, 0, 0, 0, 0}},
		{0, 0.8715154033442956, nil},
	} {
		g := gx.NewGraph(gx.Float64)
		z := g.Bind(zp)
		l := g.Watch(g.SmoothedXent(z, g.Const("y", []float64{2, 4, 0}, 3), g.Const("m", []float64{0.5, 0.5, 0}, 3), g.Const("eps", []float64{c.eps}, 1), 1))
		dz := g.Watch(g.Grad(l, z)[0])
		if err := g.Run(); err != nil {
			t.Fatal(err)
		}
		v, _ := g.Value(l)
		if math.Abs(v[0]-c.loss) > 1e-14 {
			t.Errorf("ε %g: loss %.17g, PyTorch's %.17g", c.eps, v[0], c.loss)
		}
		gv, _ := g.Value(dz)
		for i, want := range c.grad {
			if math.Abs(gv[i]-want) > 1e-15 {
				t.Errorf("ε %g: ∂z[%d] = %.17g, PyTorch's %.17g", c.eps, i, gv[i], want)
			}
		}
	}
}

// TestLinearOfLookup: a product of rows looked up in a table is rewritten as
// a lookup in the table's product when the table has no more rows than the
// ids (V = 3, N = 5) and left alone otherwise (V = 7); both give the sums
// written out here, and their gradients:
//
//	out[n,r] = Σ_d E[ids_n, d]·W[r, d]
//	∂/∂W[r,d] of Σ P⊙out = Σ_n P[n,r]·E[ids_n, d]
//	∂/∂E[v,d]            = Σ_{n: ids_n = v} Σ_r P[n,r]·W[r,d]
func TestLinearOfLookup(t *testing.T) {
	ids := []float64{2, 0, 2, 1, 2}
	const N, D, R = 5, 4, 2
	P := []float64{1, -2, 0.5, 3, -1, 2, 0.25, 1, 2, -0.5}
	for _, V := range []int{3, 7} {
		rng := rand.New(rand.NewPCG(uint64(V), 9))
		E, W := randParam(rng, "E", V, D), randParam(rng, "W", R, D)
		g := gx.NewGraph(gx.Float64)
		e, w := g.Bind(E), g.Bind(W)
		out := g.Watch(g.Linear(g.Embed(e, g.Const("ids", ids, N)), w, 0))
		grads := g.Grad(g.DotAll(out, g.Const("P", P, N, R)), e, w)
		if err := g.Run(); err != nil {
			t.Fatal(err)
		}
		ev, wv := E.Float64s(), W.Float64s()
		got, _ := g.Value(out)
		dE, _ := g.Value(grads[0])
		dW, _ := g.Value(grads[1])
		wantE, wantW := make([]float64, V*D), make([]float64, R*D)
		for n, x := range ids {
			v := int(x)
			for r := 0; r < R; r++ {
				var s float64
				for d := 0; d < D; d++ {
					s += ev[v*D+d] * wv[r*D+d]
					wantW[r*D+d] += P[n*R+r] * ev[v*D+d]
					wantE[v*D+d] += P[n*R+r] * wv[r*D+d]
				}
				if math.Abs(got[n*R+r]-s) > 1e-12 {
					t.Errorf("V=%d out[%d,%d] = %v, want %v", V, n, r, got[n*R+r], s)
				}
			}
		}
		for i := range wantE {
			if math.Abs(dE[i]-wantE[i]) > 1e-12 {
				t.Errorf("V=%d ∂E[%d] = %v, want %v", V, i, dE[i], wantE[i])
			}
		}
		for i := range wantW {
			if math.Abs(dW[i]-wantW[i]) > 1e-12 {
				t.Errorf("V=%d ∂W[%d] = %v, want %v", V, i, dW[i], wantW[i])
			}
		}
	}
}
