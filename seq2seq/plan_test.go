package seq2seq

import (
	"math/rand/v2"
	"testing"

	"github.com/attnzoo/attnzoo/internal/device/devicetest"
	"github.com/attnzoo/attnzoo/internal/gx"
)

// TestCacheSharesOneArena: the anchor model trained on two batch shapes and
// decoded greedily and with a beam, every graph in one cache (and a cache
// Shared from it). The arena's slabs are those of the largest
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
	}) {
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
// no offsets, so values share whole buffers: at the anchor 1.31 since the
// stacked gradients, whose δₜ live until their stack; 1.58 when a value
// took only a buffer of its exact size); and the device's
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
	if err := dev.UseDevice(d.Backend()); err != nil {
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

// TestRegionsInputShared: a region model's training graphs for two target
// lengths (batches of 5 and of 3 captions: 3 and 2 steps) in one cache hold
// one regions tensor per batch shape between them, not one each, and
// compute the same losses as graphs of caches of their own (each batch's
// regions are set before its run).
func TestRegionsInputShared(t *testing.T) {
	cfg := Config{Cell: "gru", Encoder: "patches", Decoder: "bahdanau", Scorer: "dot", TgtVocab: 10, Embed: 8, Hidden: 16, Attention: 8,
		Regions: 9, RegionSize: 12, Lambda: 1, Dtype: "float64", Seed: 1}
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 3))
	long := regionBatch(rng, 5, 9, 12) // captions of 1, 2, 3 tokens: 4 steps with </s>
	short, err := NewRegionBatch(long.Values[:5], 9, 12, [][]int{{4}, {5}, {6}, {7}, {8}})
	if err != nil {
		t.Fatal(err)
	}
	shared := NewGraphCache(0)
	defer shared.Close()
	var got []float64
	for _, b := range []*Batch{long, short, long} {
		l, _, err := m.Loss(b, rand.New(rand.NewPCG(0, 0)), shared)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, l)
	}
	if len(shared.trains) != 2 {
		t.Fatalf("%d training graphs, want 2", len(shared.trains))
	}
	var tensors []any
	for _, tg := range shared.trains {
		tensors = append(tensors, tg.enc.enc.(*regionInputs).regions.Value())
	}
	if tensors[0] != tensors[1] {
		t.Error("the two training graphs hold a regions tensor each")
	}
	for i, b := range []*Batch{long, short, long} {
		own := NewGraphCache(0)
		want, _, err := m.Loss(b, rand.New(rand.NewPCG(0, 0)), own)
		own.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got[i] != want {
			t.Errorf("batch %d: loss %v through the shared cache, %v through a cache of its own", i, got[i], want)
		}
	}
}
