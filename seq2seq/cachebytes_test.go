package seq2seq

import (
	"math/rand/v2"
	"testing"
)

// TestCacheBoundedByBytes: a cache whose bound fits about two of the
// anchor's training graphs, trained on three batch shapes in turn (full,
// half, quarter batch, then the full batch again), holds at most two
// graphs at any time and no more bytes than its bound, drops the one used
// least recently, and computes every loss exactly as a cache with room
// for all.
func TestCacheBoundedByBytes(t *testing.T) {
	m, err := New(AnchorConfig())
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	b := AnchorBatch(rng)
	var batches []*Batch
	for _, n := range []int{64, 32, 16} {
		x, err := NewBatch(b.Src[:n], b.TgtOut[:n])
		if err != nil {
			t.Fatal(err)
		}
		batches = append(batches, x)
	}
	batches = append(batches, batches[0], batches[2])
	roomy := NewGraphCache(0)
	defer roomy.Close()
	var want []float64
	for _, x := range batches {
		l, _, err := m.Loss(x, nil, roomy)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, l)
	}
	if roomy.Len() != 3 {
		t.Fatalf("the roomy cache holds %d graphs, want 3", roomy.Len())
	}
	var largest int64
	for mach := range roomy.uses {
		largest = max(largest, mach.HeldBytes())
	}
	tight := NewGraphCache(2*largest + largest/2)
	defer tight.Close()
	for i, x := range batches {
		l, _, err := m.Loss(x, nil, tight)
		if err != nil {
			t.Fatal(err)
		}
		if l != want[i] {
			t.Errorf("batch %d: loss %v in the bounded cache, %v in the roomy one", i, l, want[i])
		}
		if tight.Len() > 2 || tight.HeldBytes() > tight.budget {
			t.Errorf("after batch %d: %d graphs, %d bytes held; bound %d bytes (two graphs)", i, tight.Len(), tight.HeldBytes(), tight.budget)
		}
	}
	// the last three asks were 16 (built), 64 (built: 32 dropped), 16 (kept)
	if _, ok := tight.trains[shape{16, batches[2].SrcLen(), batches[2].TgtLen(), false}]; !ok {
		t.Error("the graph used last was dropped")
	}
	if _, ok := tight.trains[shape{32, batches[1].SrcLen(), batches[1].TgtLen(), false}]; ok {
		t.Error("the graph used least recently (batch 32) was kept")
	}
}
