package gx_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/backend/cpu"
	"github.com/attnzoo/attnzoo/internal/device/devicetest"
	"github.com/attnzoo/attnzoo/internal/gx"
)

// fusedSums is a graph in which every op that can add its result into a
// buffer (fold.go) has its gradient summed over two uses:
//
//	∂x   = LinearT + LinearT + GRUBlendDH + GRUBlendDH  x read by two Linears and two GRUBlends: 3 Adds
//	∂W1  = LinearW + LinearW      W1 read twice: 1 Add
//	∂b   = SumRows + SumRows      b added twice (AddBias): 1 Add
//	∂bhn = SumCols + SumCols      bhn read by two GRUGates: 1 Add
//	∂E   = EmbedGrad + EmbedGrad  E looked up twice: 1 Add
//	∂v   = ProjLastV + ProjLastV  v scoring twice (Additive): 1 Add
//	∂P   = AdditiveDelta + AdditiveDelta  P scored twice (Additive): 1 Add
//
// 3 + 1 + 1 + 1 + 1 + 1 + 1 = 9 Adds, each of which the device machine
// folds into the op computing its later operand. (Each δ is also read by
// its SumMid, ∂u: the device machine computes that from δ's operands,
// sumDeltasFromOperands, so δ is read by its Add alone; ∂u is watched to
// check it.)
func fusedSums(g *devGraph, B, D int) []*gx.Node {
	const V, S = 7, 4
	x, W1, W2, b := g.In(1, B, D), g.In(1, D, D), g.In(1, D, D), g.In(1, D)
	ids1 := g.Const([]float64{1, 3, 1, 6, 0, 3}[:B], B)
	ids2 := g.Const([]float64{2, 3, 5, 2, 2, 0}[:B], B)
	E := g.In(1, V, D)
	y1 := g.AddBias(g.Linear(x, W1, 0), b)
	y2 := g.AddBias(g.Linear(g.Linear(x, W2, 0), W1, 0), b)
	e := g.Sum(g.Embed(E, ids1), g.Embed(E, ids2))
	gb, bhn := g.In(1, 3*D), g.In(1, D)
	gates1 := g.GRUGates([]*gx.Node{g.In(1, B, 3*D)}, g.In(1, B, 3*D), gb, bhn)
	gates2 := g.GRUGates([]*gx.Node{g.In(1, B, 3*D)}, g.In(1, B, 3*D), g.In(1, 3*D), bhn)
	h := g.Sum(g.GRUBlend(gates1, x), g.GRUBlend(gates2, x))
	P, u, c, v := g.In(1, B, S, D), g.In(1, B, D), g.In(1, D), g.In(1, D)
	s1 := g.Additive(P, u, c, v)
	s2 := g.Additive(P, g.In(1, B, D), g.In(1, D), v)
	cost := g.Sum(g.Cost(y1), g.Cost(y2), g.Cost(e), g.Cost(h), g.Cost(s1), g.Cost(s2))
	return g.Grad(cost, x, W1, b, bhn, E, v, P, u)
}

// TestDeviceFusedSums: the gradients summed by folded Adds agree with the
// host's (agreeOnDevice's bound), and the folding launches 10 kernels
// fewer: the 9 Adds, and the zero fill of the EmbedGrad that adds into the
// other's ∂E (its rows of absent ids stay the first's).
func TestDeviceFusedSums(t *testing.T) {
	devicetest.OpenCL(t) // skip (or fail) before building anything
	for _, D := range deviceSizes {
		B := min(6, D+2)
		what := fmt.Sprintf("fused sums B=%d D=%d", B, D)
		agreeOnDevice(t, what, []string{"LinearT", "LinearW", "SumRows", "SumCols", "EmbedGrad", "ProjLastV", "GRUBlendDH", "AdditiveDelta", "SumMid"},
			func(g *devGraph) []*gx.Node { return fusedSums(g, B, D) })
		build := func(g *devGraph) []*gx.Node { return fusedSums(g, B, D) }
		apart, folded := runLaunches(t, build, gx.SetFoldDeviceAdds, false), runLaunches(t, build, gx.SetFoldDeviceAdds, true)
		t.Logf("%s: %d launches a run, %d with the Adds folded", what, apart, folded)
		if apart-folded != 10 {
			t.Errorf("%s: %d launches with the Adds folded, %d without: want 10 fewer", what, folded, apart)
		}
	}
}

// addCounter is a backend that counts its Add calls.
type addCounter struct {
	backend.Backend
	adds int
}

func (c *addCounter) Add(y, a, b backend.Buf, n int) error {
	c.adds++
	return c.Backend.Add(y, a, b, n)
}

// TestOneMachineEveryBackend: the host machine (its values at offsets in
// the arena's slab) and a machine on the cpu backend's own buffers
// (MachineOn: whole buffers) run the same steps, so fusedSums' gradients
// come out the same bit for bit; and both fold the same Adds: 8 of the 9
// fusedSums lists run no Add of the backend's (∂P's cannot fold: its δ is
// also read by its SumMid on a backend without AdditiveDeltaSum).
func TestOneMachineEveryBackend(t *testing.T) {
	const B, D = 6, 5
	run := func(host, fold bool) ([][]float64, int) {
		defer gx.SetFoldDeviceAdds(gx.SetFoldDeviceAdds(fold))
		g := newDevGraph()
		outs := fusedSums(g, B, D)
		for _, n := range outs {
			g.Watch(n)
		}
		be := &addCounter{Backend: cpu.New()}
		var m *gx.Machine
		var err error
		if host {
			a := gx.NewArena()
			if err := a.SetBackend(be); err != nil {
				t.Fatal(err)
			}
			m, err = g.MachineIn(a)
		} else {
			m, err = g.MachineOn(be)
		}
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		if err := m.Run(); err != nil {
			t.Fatal(err)
		}
		vals := make([][]float64, len(outs))
		for i, n := range outs {
			if vals[i], err = g.Value(n); err != nil {
				t.Fatal(err)
			}
		}
		return vals, be.adds
	}
	host, hostAdds := run(true, true)
	bufs, bufAdds := run(false, true)
	for i := range host {
		if !slices.Equal(host[i], bufs[i]) {
			t.Errorf("gradient %d: the host machine's differs from the cpu's buffers': %v vs %v", i, host[i], bufs[i])
		}
	}
	_, hostApart := run(true, false)
	_, bufApart := run(false, false)
	if hostApart-hostAdds != 8 || bufApart-bufAdds != 8 {
		t.Errorf("Adds a run: host %d folded, %d apart; cpu buffers %d folded, %d apart: want 8 fewer folded on each",
			hostAdds, hostApart, bufAdds, bufApart)
	}
}
