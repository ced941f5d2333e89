package gx_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/attnzoo/attnzoo/internal/gx"
)

// runValues runs g and returns the values of nodes (watched nodes and
// gradients).
func runValues(t *testing.T, g *gx.Graph, nodes ...*gx.Node) [][]float64 {
	t.Helper()
	if err := g.Run(); err != nil {
		t.Fatal(err)
	}
	vals := make([][]float64, len(nodes))
	for i, n := range nodes {
		v, err := g.Value(n)
		if err != nil {
			t.Fatal(err)
		}
		vals[i] = v
	}
	return vals
}

// gruComposed is the GRU step of cells.GRU written with one node per
// operation: the unfused composition GRUGates and GRUBlend replace.
func gruComposed(g *gx.Graph, xs []*gx.Node, hh, b, bhn, h *gx.Node, H int) *gx.Node {
	xi := g.AddBias(g.Sum(xs...), b)
	part := func(x *gx.Node, k int) *gx.Node { return g.SliceLast(x, k*H, (k+1)*H) }
	r := g.Sigmoid(g.Add(part(xi, 0), part(hh, 0)))
	z := g.Sigmoid(g.Add(part(xi, 1), part(hh, 1)))
	n := g.Tanh(g.Add(part(xi, 2), g.Mul(r, g.AddBias(part(hh, 2), bhn))))
	return g.Add(n, g.Mul(z, g.Sub(h, n)))
}

// TestGRUFusedMatchesComposition runs the fused GRU step and the
// composition on the same inputs at B = 16, H = 24 (two input projections)
// and compares the new state and the gradient of a random projection of it
// with respect to every input: equal to 1e-13 in float64; in float32, the
// fused step against the float64 composition to 2e-6.
func TestGRUFusedMatchesComposition(t *testing.T) {
	const B, H = 16, 24
	rng := rand.New(rand.NewPCG(11, 12))
	rnd := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(float32(2*rng.Float64() - 1))
		}
		return v
	}
	data := map[string][]float64{"x1": rnd(B * 3 * H), "x2": rnd(B * 3 * H), "hh": rnd(B * 3 * H),
		"b": rnd(3 * H), "bhn": rnd(H), "h": rnd(B * H), "proj": rnd(B * H)}
	shape := map[string][]int{"x1": {B, 3 * H}, "x2": {B, 3 * H}, "hh": {B, 3 * H}, "b": {3 * H}, "bhn": {H}, "h": {B, H}, "proj": {B, H}}
	names := []string{"x1", "x2", "hh", "b", "bhn", "h"}
	run := func(dt any, fused bool) (out []float64, grads [][]float64) {
		g := gx.NewGraph(gx.Float64)
		if dt == gx.Float32 {
			g = gx.NewGraph(gx.Float32)
		}
		n := map[string]*gx.Node{}
		for _, k := range append(names, "proj") {
			n[k] = g.Const(k, data[k], shape[k]...)
		}
		xs := []*gx.Node{n["x1"], n["x2"]}
		var h *gx.Node
		if fused {
			h = g.GRUBlend(g.GRUGates(xs, n["hh"], n["b"], n["bhn"]), n["h"])
		} else {
			h = gruComposed(g, xs, n["hh"], n["b"], n["bhn"], n["h"], H)
		}
		g.Watch(h)
		wrt := make([]*gx.Node, len(names))
		for i, k := range names {
			wrt[i] = n[k]
		}
		vals := runValues(t, g, append([]*gx.Node{h}, g.Grad(g.DotAll(h, n["proj"]), wrt...)...)...)
		return vals[0], vals[1:]
	}
	cmp := func(what string, a, b []float64, tol float64) {
		t.Helper()
		for i := range a {
			if math.Abs(a[i]-b[i]) > tol*math.Max(1, math.Abs(b[i])) {
				t.Errorf("%s[%d]: %v, want %v", what, i, a[i], b[i])
				return
			}
		}
	}
	refOut, refGrads := run(gx.Float64, false)
	// the forward values against a direct computation, too
	want := make([]float64, B*H)
	for r := 0; r < B; r++ {
		for i := 0; i < H; i++ {
			xi := func(k int) float64 {
				j := r*3*H + k*H + i
				return data["x1"][j] + data["x2"][j] + data["b"][k*H+i]
			}
			hh := func(k int) float64 { return data["hh"][r*3*H+k*H+i] }
			sg := func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
			rg, z := sg(xi(0)+hh(0)), sg(xi(1)+hh(1))
			n := math.Tanh(xi(2) + rg*(hh(2)+data["bhn"][i]))
			want[r*H+i] = n + z*(data["h"][r*H+i]-n)
		}
	}
	cmp("composed h'", refOut, want, 1e-14)
	for _, c := range []struct {
		dt  any
		tol float64
	}{{gx.Float64, 1e-13}, {gx.Float32, 2e-6}} {
		t.Run(fmt.Sprint(c.dt), func(t *testing.T) {
			out, grads := run(c.dt, true)
			cmp("h'", out, refOut, c.tol)
			for i, k := range names {
				cmp("∂"+k, grads[i], refGrads[i], c.tol)
			}
		})
	}
}
