package seq2seq

import (
	"math/rand/v2"
	"testing"

	"github.com/attnzoo/attnzoo/internal/device/devicetest"
	"github.com/attnzoo/attnzoo/internal/gx"
)

// TestCacheSharesOneArena: the anchor model trained on two batch shapes and
// decoded greedily and with a beam, every graph in one cache (and a cache
// Shared from it). Each graph computes every value of ours inside its plan
// (no buffer outside it), and the arena's slabs are those of the largest
// plan, not the sum of the graphs' plans: the graphs run one at a time.
func TestCacheSharesOneArena(t *testing.T) {
	m, err := New(AnchorConfig())
	if err != nil {
		t.Fatal(err)
	}
	opt, _ := NewOptimizer(Optimizer{Name: "adam", LR: 1e-3, Clip: 5})
	tr := NewTrainer(m, opt, 1)
	defer tr.Cache.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	b := AnchorBatch(rng)
	half, err := NewBatch(b.Src[:32], b.TgtOut[:32])
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []*Batch{b, half, b} {
		if _, err := tr.Step(x); err != nil {
			t.Fatal(err)
		}
	}
	eval := tr.Cache.Share(0)
	defer eval.Close()
	if _, err := m.Greedy(b, 14, eval); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Beam(half, BeamOptions{Width: 3, MaxLen: 14, Cache: eval}); err != nil {
		t.Fatal(err)
	}
	var plans []int64
	var work []int64 // the most any graph takes at each place
	check := func(what string, mach interface {
		Bytes() int64
		WorkBytes() []int64
		Strays() (int, int64)
	}) {
		if n, bytes := mach.Strays(); n != 0 {
			t.Errorf("%s graph: %d values (%d bytes) computed outside its plan", what, n, bytes)
		}
		plans = append(plans, mach.Bytes())
		for i, b := range mach.WorkBytes() {
			if i == len(work) {
				work = append(work, 0)
			}
			work[i] = max(work[i], b)
		}
	}
	for _, c := range []*GraphCache{tr.Cache, eval} {
		for _, g := range c.trains {
			check("training", g.mach)
		}
		for _, g := range c.encs {
			check("encoder", g.mach)
		}
		for _, g := range c.steps {
			check("decoding", g.mach)
		}
	}
	if len(plans) != 2+1+1+1+1 { // two training shapes; the encoder at 64 and 32 rows, greedy's steps, the beam's
		t.Fatalf("%d graphs, want 6", len(plans))
	}
	var largest, sum int64
	for _, p := range plans {
		largest, sum = max(largest, p), sum+p
	}
	slab := tr.Cache.arena.SlabBytes()
	if slab != largest {
		t.Errorf("the arena's slab is %d bytes, want the largest plan's %d (the plans sum to %d)", slab, largest, sum)
	}
	// the GRU sequence's working buffers, declared from shapes, are what
	// the ops took at run time
	var declared int64
	for _, b := range work {
		declared += b
	}
	if got := tr.Cache.arena.WorkBytes(); got != declared || got == 0 {
		t.Errorf("the arena's working buffers are %d bytes, the graphs declared %d", got, declared)
	}
	if eval.arena != tr.Cache.arena {
		t.Error("Share made a cache with an arena of its own")
	}
}

// TestDevicePlan: the anchor's training graph compiled on the OpenCL
// device holds its computed values in buffers shared by liveness, as the
// host's plan holds them at offsets: what the machine allocated for them is
// at most 1.5 times what the same lifetimes need at offsets (a buffer has
// no offsets, so values share whole buffers of one size); and the device's
// own count of what it allocated covers the machine's.
func TestDevicePlan(t *testing.T) {
	d := devicetest.OpenCL(t)
	host, err := New(AnchorConfig())
	if err != nil {
		t.Fatal(err)
	}
	hg, err := host.buildTrain(gx.NewArena(), 64, 12, 13)
	if err != nil {
		t.Fatal(err)
	}
	defer hg.mach.Close()
	dev, _ := New(AnchorConfig())
	if err := dev.UseDevice(d); err != nil {
		t.Fatal(err)
	}
	defer dev.UseDevice(nil)
	before := d.Traffic().LiveBytes
	opt, _ := NewOptimizer(Optimizer{Name: "sgd", LR: 0.01})
	tr := NewTrainer(dev, opt, 1)
	defer tr.Cache.Close()
	if _, err := tr.Step(AnchorBatch(rand.New(rand.NewPCG(1, 2)))); err != nil {
		t.Fatal(err)
	}
	var tg *trainGraph
	for _, g := range tr.Cache.trains {
		tg = g
	}
	values, plan := tg.mach.DeviceBytes()
	t.Logf("device values %d bytes, their plan at offsets %d, the host's plan %d", values, plan, hg.mach.Bytes())
	if values > plan*3/2 || plan == 0 {
		t.Errorf("the device machine allocated %d bytes for its values, over 1.5 × its plan's %d", values, plan)
	}
	if grew := d.Traffic().LiveBytes - before; grew < values {
		t.Errorf("the device counts %d bytes allocated, fewer than the machine's values alone (%d)", grew, values)
	}
}
