package gx_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/attnzoo/attnzoo/internal/device/devicetest"
	"github.com/attnzoo/attnzoo/internal/gx"
)

// deviceSizes are sizes that are multiples of no work-group size.
var deviceSizes = []int{1, 37, 129}

// devGraph is a float32 graph for agreeOnDevice: In makes an input filled
// with draws from N(0, scale²) (the same draws in both graphs), Cost the
// projection of an output onto fixed random weights.
type devGraph struct {
	*gx.Graph
	rng *rand.Rand
	n   int
}

// newDevGraph is an empty devGraph, its draws from a fixed seed.
func newDevGraph() *devGraph {
	return &devGraph{Graph: gx.NewGraph(gx.Float32), rng: rand.New(rand.NewPCG(11, 12))}
}

func (g *devGraph) In(scale float64, shape ...int) *gx.Node {
	g.n++
	x := g.Input(fmt.Sprintf("in%d", g.n), shape...)
	g.Fail(gx.Fill(x, func(int) float64 { return scale * g.rng.NormFloat64() }))
	return x
}

// Const makes an input holding data.
func (g *devGraph) Const(data []float64, shape ...int) *gx.Node {
	g.n++
	return g.Graph.Const(fmt.Sprintf("c%d", g.n), data, shape...)
}

// Cost is Σ out ⊙ R for a fixed random R, so every entry of out reaches
// the gradient with its own coefficient.
func (g *devGraph) Cost(out *gx.Node) *gx.Node {
	if out == nil {
		return nil
	}
	return g.DotAll(out, g.In(1, out.Shape()...))
}

// agreeOnDevice builds a graph twice (build must draw its inputs through
// In, in the same order each time) and runs it on the host machine and on
// the OpenCL device; every node build returns (outputs and gradients) must
// agree within |dev − host| ≤ 1e-5·|host| + 1e-6·M, M the largest |host|
// over all the nodes returned: float32 rounding is relative to the terms
// summed, and a small gradient that is a cancellation of larger terms
// (a bias gradient summed over rows) keeps their absolute error. None of
// the ops named in onDevice may run on the host.
func agreeOnDevice(t *testing.T, what string, onDevice []string, build func(g *devGraph) []*gx.Node) {
	t.Helper()
	d := devicetest.OpenCL(t)
	run := func(dev bool) ([][]float64, []string) {
		g := newDevGraph()
		outs := build(g)
		for _, n := range outs {
			g.Watch(n)
		}
		var m *gx.Machine
		var err error
		if dev {
			m, err = g.MachineOn(d.Backend())
		} else {
			m, err = g.Machine()
		}
		return machineValues(t, what, g.Graph, m, err, outs), m.HostOps()
	}
	want, _ := run(false)
	got, host := run(true)
	for _, name := range onDevice {
		if slices.Contains(host, name) {
			t.Errorf("%s: op %s runs on the host (host ops: %v)", what, name, host)
		}
	}
	scale := 0.0
	for i := range want {
		for _, v := range want[i] {
			scale = math.Max(scale, math.Abs(v))
		}
	}
	for i := range want {
		worst := 0.0
		for j := range want[i] {
			diff := math.Abs(got[i][j] - want[i][j])
			worst = math.Max(worst, diff)
			if diff > 1e-5*math.Abs(want[i][j])+1e-6*scale || math.IsNaN(got[i][j]) {
				t.Errorf("%s: output %d [%d] = %v on the device, %v on the host", what, i, j, got[i][j], want[i][j])
				break
			}
		}
		t.Logf("%s: output %d: max |dev − host| = %.2g (M = %.2g)", what, i, worst, scale)
	}
}

// TestDeviceElementwise: the elementwise ops, masked softmax and the linear
// map, forward and gradient, with masked and all-masked rows.
func TestDeviceElementwise(t *testing.T) {
	for _, n := range deviceSizes {
		agreeOnDevice(t, fmt.Sprintf("elementwise n=%d", n), []string{"Tanh", "TanhGrad", "Sigmoid", "SigmoidGrad", "ReLU", "ReLUGrad", "Mul", "Sum", "Sub", "Neg"},
			func(g *devGraph) []*gx.Node {
				a, b, c := g.In(2, 3, n), g.In(2, 3, n), g.In(2, 3, n)
				y := g.Sum(g.Tanh(a), g.Sigmoid(b), g.ReLU(c), g.Sub(g.Mul(a, b), c))
				return append([]*gx.Node{y}, g.Grad(g.Cost(y), a, b, c)...)
			})
		agreeOnDevice(t, fmt.Sprintf("softmax and linear n=%d", n), []string{"MaskedSoftmax", "SoftmaxGrad", "Linear", "LinearT", "LinearW"},
			func(g *devGraph) []*gx.Node {
				mask := make([]float64, 4*n)
				for i := range mask {
					if i < n || i%3 != 0 { // row 0 all kept; row 1 all masked when n = 1
						mask[i] = 1
					}
				}
				for i := n; i < 2*n; i++ {
					mask[i] = 0 // row 1: all masked
				}
				x, W, Wp := g.In(1, 4, 5), g.In(1, n, 5), g.In(1, n+3, 5)
				s := g.Linear(x, W, 0)
				p := g.MaskedSoftmax(s, g.Const(mask, 4, n))
				q := g.Linear(x, Wp, n) // a prefix of Wp's rows
				y := g.Sum(p, q)
				return append([]*gx.Node{p, q}, g.Grad(g.Cost(y), x, W, Wp)...)
			})
	}
}
