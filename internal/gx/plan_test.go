package gx

import (
	"math"
	"testing"
)

// TestPlanReusesDeadValues: a chain x → a → b → c → d of four tanh, x an
// input of 1000 values and d watched. Each value lives from the step that
// writes it to the step that reads it: a [0,1], b [1,2], c [2,3], d [3,end].
// With offsets in multiples of 16 values, 1000 takes 1008: a at 0, b at
// 1008 (a is still read at step 1), c at 0 (a's last read was step 1), d at
// 1008 (b's was step 2): two buffers, 2·1008 values, where one a node would
// need four. The values are tanh applied four times, as without a plan.
func TestPlanReusesDeadValues(t *testing.T) {
	for _, tc := range []struct {
		dt    Dtype
		bytes int64
	}{{Float32, 2 * 1008 * 4}, {Float64, 2 * 1008 * 8}} {
		g := NewGraph(tc.dt)
		x := g.Input("x", 1000)
		d := g.Watch(g.Tanh(g.Tanh(g.Tanh(g.Tanh(x)))))
		m, err := g.Machine()
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Bytes(); got != tc.bytes {
			t.Errorf("%v: plan needs %d bytes, want %d", tc.dt, got, tc.bytes)
		}
		xs := make([]float64, 1000)
		for i := range xs {
			xs[i] = float64(i-500) / 100
		}
		for run := 0; run < 2; run++ { // a second run reuses the same buffers
			if err := Set(x, xs); err != nil {
				t.Fatal(err)
			}
			if err := m.Run(); err != nil {
				t.Fatal(err)
			}
			got, err := g.Value(d)
			if err != nil {
				t.Fatal(err)
			}
			tol := 1e-6
			if tc.dt == Float64 {
				tol = 1e-15
			}
			for i, v := range xs {
				want := math.Tanh(math.Tanh(math.Tanh(math.Tanh(v))))
				if math.Abs(got[i]-want) > tol {
					t.Fatalf("%v run %d: d[%d] = %v, want %v", tc.dt, run, i, got[i], want)
				}
			}
		}
	}
}

// TestArenaHoldsTheLargest: two graphs compiled into one arena, one over
// 1000 values and one over 3000, each a chain of two tanh (two live
// buffers: 2·1008 and 2·3008 values). The arena's slab is the larger
// plan's, 2·3008 float32 values, not the sum; and each graph still computes
// its own values after the other has run over the same memory (a slab
// grown anew: machines let go of the old one).
func TestArenaHoldsTheLargest(t *testing.T) {
	a := NewArena()
	type chain struct {
		g    *Graph
		x, y *Node
		m    *Machine
	}
	mk := func(n int) chain {
		g := NewGraph(Float32)
		c := chain{g: g, x: g.Input("x", n)}
		c.y = g.Watch(g.Tanh(g.Tanh(c.x)))
		m, err := g.MachineIn(a)
		if err != nil {
			t.Fatal(err)
		}
		c.m = m
		return c
	}
	small, big := mk(1000), mk(3000)
	run := func(c chain, v float64) {
		t.Helper()
		if err := Fill(c.x, func(int) float64 { return v }); err != nil {
			t.Fatal(err)
		}
		if err := c.m.Run(); err != nil {
			t.Fatal(err)
		}
		got, err := c.g.Value(c.y)
		if err != nil {
			t.Fatal(err)
		}
		want := math.Tanh(math.Tanh(v))
		for i, g := range got {
			if math.Abs(g-want) > 1e-6 {
				t.Fatalf("y[%d] = %v, want %v", i, g, want)
			}
		}
	}
	run(small, 0.5)
	run(big, -1)
	// the big graph grew the slab: the small graph's value of its last run
	// lived in the old one, which is given back, so reading it is an error,
	// not a stale number
	if _, err := small.g.Value(small.y); err == nil {
		t.Error("a value read from a slab given back")
	}
	run(small, 2)
	if got, want := a.Bytes(), int64(2*3008*4); got != want {
		t.Errorf("arena holds %d bytes, want %d (the larger plan)", got, want)
	}
}
