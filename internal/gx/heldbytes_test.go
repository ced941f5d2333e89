package gx

import (
	"runtime"
	"testing"
)

// TestHeldBytes: what a compiled and run graph adds to the Go heap (its
// nodes, ops and inputs; measured around its building) is within 2× of
// Machine.HeldBytes, and the arena it shares is apart.
func TestHeldBytes(t *testing.T) {
	var before, after runtime.MemStats
	a := NewArena()
	build := func() (*Graph, *Machine) {
		g := NewGraph(Float32)
		x := g.Input("x", 64, 32)
		w := g.Input("w", 32, 32)
		y := x
		for range 500 {
			y = g.Tanh(g.Linear(y, w, 0))
		}
		g.Grad(g.DotAll(y, x), x)
		m, err := g.MachineIn(a)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Run(); err != nil {
			t.Fatal(err)
		}
		return g, m
	}
	build() // the arena's slab, the kernels' first use
	runtime.GC()
	runtime.ReadMemStats(&before)
	g, m := build()
	runtime.GC()
	runtime.ReadMemStats(&after)
	grew := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	held := m.HeldBytes()
	t.Logf("%d nodes: heap grew %d bytes, HeldBytes %d (inputs %d)", len(m.stepOf), grew, held, m.inputBytes)
	if held < grew/2 || held > 2*grew {
		t.Errorf("HeldBytes %d, the heap grew %d: not within 2×", held, grew)
	}
	if want := int64((64*32 + 32*32) * 4); m.inputBytes != want {
		t.Errorf("inputs hold %d bytes, want %d (x [64,32] and w [32,32] float32)", m.inputBytes, want)
	}
	runtime.KeepAlive(g)
	m.Close()
}
