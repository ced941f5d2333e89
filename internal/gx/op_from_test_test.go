package gx

import (
	"slices"
	"testing"

	"github.com/attnzoo/attnzoo/internal/device/devicetest"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// An op added from this file alone, as a new op is added from its own file:
// its graph method, its shape, one forward against the backend (the cpu's on
// the host, the OpenCL device's on a device) and its gradient from ops that
// exist. Nothing else in the engine names it.
//
//	Square: y = x ⊙ x      ∂x = g ⊙ x + g ⊙ x  (= 2·g ⊙ x, exactly: a doubling)
type squareOp struct{ base }

func (g *Graph) square(x *Node) *Node {
	if !g.ok(x) {
		return nil
	}
	return g.apply(&squareOp{base{name: "TestSquare", in: []int{x.Dims()}, out: x.Dims()}}, x)
}

func (op *squareOp) forward(c *call) error { return c.be.Mul(c.out, c.in[0], c.in[0], c.n(0)) }
func (op *squareOp) DiffWRT(int) []bool    { return []bool{true} }

func (op *squareOp) SymDiff(in G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	d := grad.Dims()
	gx, err := op.applyOp(&mulOp{base{name: "Mul", in: []int{d, d}, out: d}}, grad, in[0])
	if err != nil {
		return nil, err
	}
	two, err := op.applyOp(&sumOp{base{name: "Sum", args: "2", in: []int{d, d}, out: d}}, gx, gx)
	return G.Nodes{two}, err
}

// RunOnce compiles g on the host machine, or on the OpenCL device (the
// test skipped without one), runs it once and closes the machine when the
// test ends: for tests in this package and in gx_test.
func RunOnce(t testing.TB, g *Graph, device bool) *Machine {
	t.Helper()
	var m *Machine
	var err error
	if device {
		m, err = g.MachineOn(devicetest.OpenCL(t).Backend())
	} else {
		m, err = g.Machine()
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	if err := m.Run(); err != nil {
		t.Fatal(err)
	}
	return m
}

// BenchRuns compiles g and times its runs on the host machine.
func BenchRuns(b *testing.B, g *Graph) {
	m, err := g.Machine()
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	b.ReportAllocs()
	for b.Loop() {
		if err := m.Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestOpFromTestFile: cost = Σ r ⊙ x² for x = [1, −2, 3], r = [0.5, 1, 2] is
// 0.5·1 + 1·4 + 2·9 = 22.5, and ∂cost/∂x = 2·r ⊙ x = [1, −4, 12]: exact in
// float64 and float32 on the host, and on the OpenCL device.
func TestOpFromTestFile(t *testing.T) {
	run := func(dt tensor.Dtype, device bool) (float64, []float64) {
		g := NewGraph(dt)
		x := g.Const("x", []float64{1, -2, 3}, 3)
		r := g.Const("r", []float64{0.5, 1, 2}, 3)
		cost := g.DotAll(g.square(x), r)
		dx := g.Grad(cost, x)
		g.Watch(cost)
		g.Watch(dx[0])
		m := RunOnce(t, g, device)
		if slices.Contains(m.HostOps(), "TestSquare") {
			t.Errorf("the op ran on the host, not on the device: host ops %v", m.HostOps())
		}
		c, err := g.View(cost)
		if err != nil {
			t.Fatal(err)
		}
		d, err := g.View(dx[0])
		if err != nil {
			t.Fatal(err)
		}
		return c.At(0), d.Float64s()
	}
	check := func(what string, c float64, d []float64) {
		want := []float64{1, -4, 12}
		if c != 22.5 || len(d) != 3 || d[0] != want[0] || d[1] != want[1] || d[2] != want[2] {
			t.Errorf("%s: cost %v, ∂x %v; want 22.5, %v", what, c, d, want)
		}
	}
	c, d := run(Float64, false)
	check("float64", c, d)
	c, d = run(Float32, false)
	check("float32", c, d)
	t.Run("opencl", func(t *testing.T) {
		c, d := run(Float32, true)
		check("opencl", c, d)
	})
}
