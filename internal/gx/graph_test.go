package gx

import (
	"errors"
	"testing"

	G "gorgonia.org/gorgonia"
)

// TestHashCollisionRefused: the inputs "x1232789" and "x1429192" of shape
// [2] have the same gorgonia node hash (0f682091: FNV-32a of "Vector
// float64(2)" + name + a zero child count, found by search). gorgonia's
// compiler eliminates common subexpressions by that hash alone, so its
// tape machine reads the first input in place of the second and a − b comes
// out 0. Machine refuses the graph. (A salt changes the hashes of our ops,
// and so of every node computed from them, not those of inputs: two inputs
// that collide need another name.)
func TestHashCollisionRefused(t *testing.T) {
	build := func(salt uint32) (*Graph, *Node) {
		g := NewSaltedGraph(Float64, salt)
		a := g.Const("x1232789", []float64{1, 2}, 2)
		b := g.Const("x1429192", []float64{10, 20}, 2)
		if a.Hashcode() != b.Hashcode() {
			t.Fatalf("hashes %08x and %08x differ: the fixture no longer collides", a.Hashcode(), b.Hashcode())
		}
		return g, g.Watch(G.Must(G.Sub(a, b))) // gorgonia's op: ours run only in a machine
	}

	// gorgonia alone gets it wrong
	g, d := build(0)
	vm := G.NewTapeMachine(g.g)
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	t.Logf("gorgonia's tape machine computed a − b = %v (want [-9 -18])", d.Value())
	vm.Close()

	g, _ = build(0)
	if _, err := g.Machine(); !errors.Is(err, ErrHashCollision) {
		t.Fatalf("Machine: got %v, want ErrHashCollision", err)
	}
	t.Log(g.checkHashes())
}
