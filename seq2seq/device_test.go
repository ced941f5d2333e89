package seq2seq

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/attnzoo/attnzoo/cells"
	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/device"
	"github.com/attnzoo/attnzoo/internal/device/devicetest"
	"github.com/attnzoo/attnzoo/optimizers"
	"github.com/attnzoo/attnzoo/scorers"
)

// deviceCases: every scorer × decoder × cell (birnn encoder), every
// normaliser, three heads with each decoder, and the cnn encoder with its
// gate and penalty, in float32.
func deviceCases() []Config {
	var cases []Config
	for _, c := range cells.Names() {
		for _, s := range scorers.Names() {
			for _, d := range DecoderNames() {
				cases = append(cases, tiny(c, "birnn", d, s))
			}
		}
	}
	for _, n := range scorers.NormalizerNames() {
		c := tiny("gru", "birnn", "luong", "general")
		c.Normalizer = n
		cases = append(cases, c)
	}
	for _, d := range DecoderNames() { // three heads: RepeatRows and HeadMean
		c := tiny("gru", "birnn", d, "projected-dot")
		c.ScorerSettings = scorers.Values{"attention": 6, "heads": 3}
		cases = append(cases, c)
	}
	smoothed := tiny("gru", "birnn", "bahdanau", "general") // label smoothing: ε an input of the graph
	smoothed.LabelSmoothing = 0.1
	cases = append(cases, tinyCNN("lstm", "bahdanau", "concat"), tinyCNN("gru", "luong", "dot"), smoothed)
	for i := range cases {
		cases[i].Dtype = "float32"
	}
	return cases
}

// TestDeviceGradients: the loss and every parameter's gradient of the whole
// model computed on a device (float32) are as accurate as the host
// machine's float32 ones. Both are measured against the host's float64
// computation from the same parameters (the float32 values, widened): the
// device's largest error over all gradients may be at most 4× the host's
// plus 1e-7·max|g| (the host's tanh and σ are a rational approximation
// within 4e-7, the device's the OpenCL built-ins, and sums run in other
// orders, so neither is the other's reference; a wrong kernel is off by far
// more). Measured over the 54 cases: the device's error is 0.4–2.4× the
// host's, except rnn/luong/cosine (2.9×: its learned sharpness amplifies
// rounding, and its host error, 2e-6 of max|g|, is ten times the others').
// The errors are logged relative to max|g|.
func TestDeviceGradients(t *testing.T) {
	devicetest.Each(t, func(t *testing.T, d backend.Backend) {
		for _, cfg := range deviceCases() {
			scorer := cfg.Scorer
			if h := cfg.ScorerSettings["heads"]; h > 1 {
				scorer += fmt.Sprintf("×%g", h)
			}
			t.Run(fmt.Sprintf("%s/%s/%s/%s/%s/ls%g", cfg.Cell, cfg.Encoder, cfg.Decoder, scorer, cfg.Normalizer, cfg.LabelSmoothing), func(t *testing.T) {
				m, err := New(cfg)
				if err != nil {
					t.Fatal(err)
				}
				cfg64 := cfg
				cfg64.Dtype = "float64"
				m64, err := New(cfg64)
				if err != nil {
					t.Fatal(err)
				}
				for i, p := range m.Params() {
					for j := 0; j < p.Size(); j++ {
						m64.Params()[i].SetAt(j, p.At(j))
					}
				}
				rng := rand.New(rand.NewPCG(3, 4))
				var b *Batch
				if cfg.Encoder == "cnn" {
					b = imageBatch(rng, 3, cfg.ImageH, cfg.ImageW, cfg.ImageC, m.Cfg.Regions, 0, cfg.TgtVocab)
				} else {
					src, tgt := reversal(rng, 3, 2, 5)
					if b, err = NewBatch(src, tgt); err != nil {
						t.Fatal(err)
					}
				}
				var hostOps []string
				loss := func(m *Model) (float64, [][]float64) {
					c := NewGraphCache(0)
					defer c.Close()
					l, g, err := m.Loss(b, rand.New(rand.NewPCG(1, 1)), c)
					if err != nil {
						t.Fatal(err)
					}
					hostOps = c.HostOps()
					return l, g
				}
				refLoss, ref := loss(m64)
				hostLoss, host := loss(m)
				if err := m.UseDevice(d); err != nil {
					t.Fatal(err)
				}
				defer m.UseDevice(nil)
				devLoss, dev := loss(m)
				scale := 0.0
				for i := range ref {
					for _, v := range ref[i] {
						scale = math.Max(scale, math.Abs(v))
					}
				}
				worstErr := func(g [][]float64) (float64, string) {
					w, at := 0.0, ""
					for i := range ref {
						for j := range ref[i] {
							if e := math.Abs(g[i][j] - ref[i][j]); e > w || math.IsNaN(g[i][j]) {
								w, at = e, fmt.Sprintf("%s[%d] = %v (float64 %v)", m.Params()[i].Name, j, g[i][j], ref[i][j])
							}
						}
					}
					return w, at
				}
				hw, _ := worstErr(host)
				dw, at := worstErr(dev)
				if !(dw <= 4*hw+1e-7*scale) {
					t.Errorf("gradient error on %s %.3g (at %s), on the host %.3g, max|g| %.3g", d.Name(), dw, at, hw, scale)
				}
				if le, lh := math.Abs(devLoss-refLoss), math.Abs(hostLoss-refLoss); !(le <= 4*lh+1e-6*math.Abs(refLoss)) {
					t.Errorf("loss %v on %s, %v on the host, %v in float64", devLoss, d.Name(), hostLoss, refLoss)
				}
				t.Logf("gradient error / max|g|: device %.2g, host float32 %.2g; ops on the host: %v", dw/scale, hw/scale, hostOps)
			})
		}
	})
}

// TestDeviceTraining: five clipped steps of each optimizer on the OpenCL
// device (float32 moments, the update in float32) give the parameters five
// host steps give (float64 moments) to within 1e-4 (lr 0.01: the steps
// move a parameter by up to 0.05), and the losses agree to 1e-4 relative.
// Adam with the inverse_sqrt schedule (lr 0.02, warmup 2: rates 0.01,
// 0.02, 0.0163, 0.0141, 0.0126) shows the rate of each step reaches the
// device's update: Adam moves a parameter by about its rate each step, so
// a rate held at the first step's would miss the host's by ~0.01.
func TestDeviceTraining(t *testing.T) {
	d := devicetest.OpenCL(t)
	for _, c := range []struct {
		opt   string
		lr    float64
		sched optimizers.Schedule
	}{
		{"adam", 0.01, optimizers.Schedule{}}, {"rmsprop", 0.01, optimizers.Schedule{}}, {"sgd", 0.01, optimizers.Schedule{}},
		{"adam", 0.02, optimizers.Schedule{Name: "inverse_sqrt", Warmup: 2}},
	} {
		opt := c.opt
		t.Run(strings.TrimSuffix(opt+"/"+c.sched.Name, "/"), func(t *testing.T) {
			cfg := tiny("gru", "birnn", "bahdanau", "concat")
			cfg.Dtype = "float32"
			host, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			dev, _ := New(cfg)
			rng := rand.New(rand.NewPCG(3, 4))
			src, tgt := reversal(rng, 3, 2, 5)
			b, err := NewBatch(src, tgt)
			if err != nil {
				t.Fatal(err)
			}
			newOpt := func() *Optimizer {
				o, err := NewOptimizer(Optimizer{Name: opt, LR: c.lr, Clip: 0.5, Schedule: c.sched})
				if err != nil {
					t.Fatal(err)
				}
				return o
			}
			th, td := NewTrainer(host, newOpt(), 1), NewTrainer(dev, newOpt(), 1)
			defer th.Cache.Close()
			defer td.Cache.Close()
			if err := dev.UseDevice(d.Backend()); err != nil {
				t.Fatal(err)
			}
			defer dev.UseDevice(nil)
			var before device.Traffic
			for step := 0; step < 5; step++ {
				if step == 1 {
					before = d.Traffic()
				}
				lh, err := th.Step(b)
				if err != nil {
					t.Fatal(err)
				}
				ld, err := td.Step(b)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(lh-ld) > 1e-4*math.Abs(lh) {
					t.Errorf("step %d: loss %v on %s, %v on the host", step+1, ld, d.Name(), lh)
				}
			}
			after := d.Traffic()
			in, out := (after.BytesIn-before.BytesIn)/4, (after.BytesOut-before.BytesOut)/4
			t.Logf("per step: %d bytes in, %d out, %d launches; host ops %v", in, out, (after.Launches-before.Launches)/4, td.Cache.HostOps())
			// every op of this model has a kernel; per step the loss and the
			// gradients' global norm come out (two float32: 8 bytes; the
			// clip factor is computed on the device), and at most the batch
			// goes in (source ids, mask and pool weights [B,S]; target
			// inputs, outputs and weights [B,T]: here the same batch each
			// step, so nothing is sent again)
			if ops := td.Cache.HostOps(); len(ops) > 0 {
				t.Errorf("ops on the host: %v", ops)
			}
			if out != 8 {
				t.Errorf("%d bytes out per step, want 8 (the loss and the global norm)", out)
			}
			// after the first step nothing is allocated, and the host never
			// waits for the queue in a read or a write (the loss comes back
			// through an event: Traffic.Waits)
			if n := after.Allocs - before.Allocs; n != 0 {
				t.Errorf("%d buffers allocated in steps 2 to 5, want 0", n)
			}
			if r, w := after.BlockingReads-before.BlockingReads, after.BlockingWrites-before.BlockingWrites; r != 0 || w != 0 {
				t.Errorf("%d blocking reads and %d blocking writes in steps 2 to 5, want none", r, w)
			}
			if most := int64(4 * 3 * b.Size() * (b.SrcLen() + b.TgtLen())); in > most {
				t.Errorf("%d bytes in per step, more than the batch's %d", in, most)
			}
			if err := dev.Sync(); err != nil {
				t.Fatal(err)
			}
			for i, p := range dev.Params() {
				q := host.Params()[i]
				for j := 0; j < p.Size(); j++ {
					if diff := math.Abs(p.At(j) - q.At(j)); diff > 1e-4 {
						t.Errorf("%s[%d] = %v on %s, %v on the host", p.Name, j, p.At(j), d.Name(), q.At(j))
						break
					}
				}
			}
		})
	}
}

// TestDeviceStepAllocs: a training step of the anchor (AnchorConfig,
// AnchorBatch, Adam with clipping) on the OpenCL device allocates at most 8 KB of host memory
// (issue 25's bar), measured as runtime.MemStats' TotalAlloc over 5 steps
// after 2 that compile the graph and set up its launch sites: the whole
// step as Step and as Push (the loss one step late, as runs train) make
// it, and the training graph's run alone (forward and backward). (The figures
// before and after are in docs/gpu.md.)
func TestDeviceStepAllocs(t *testing.T) {
	d := devicetest.OpenCL(t)
	m, err := New(AnchorConfig())
	if err != nil {
		t.Fatal(err)
	}
	opt, err := NewOptimizer(Optimizer{Name: "adam", LR: 1e-3, Clip: 1})
	if err != nil {
		t.Fatal(err)
	}
	tr := NewTrainer(m, opt, 1)
	defer tr.Cache.Close()
	if err := m.UseDevice(d.Backend()); err != nil {
		t.Fatal(err)
	}
	defer m.UseDevice(nil)
	b := AnchorBatch(rand.New(rand.NewPCG(1, 2)))
	perStep := func(f func() error) (bytes, allocs uint64) {
		for range 2 {
			if err := f(); err != nil {
				t.Fatal(err)
			}
		}
		const n = 5
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range n {
			if err := f(); err != nil {
				t.Fatal(err)
			}
		}
		runtime.ReadMemStats(&after)
		return (after.TotalAlloc - before.TotalAlloc) / n, (after.Mallocs - before.Mallocs) / n
	}
	for _, c := range []struct {
		what string
		f    func() error
	}{
		{"the training graph", func() error { _, _, err := m.runTrain(b, tr.rng, tr.Cache); return err }},
		{"Step", func() error { _, err := tr.Step(b); return err }},
		{"Push", func() error { _, _, err := tr.Push(b); return err }},
	} {
		bytes, allocs := perStep(c.f)
		t.Logf("%s: %d bytes in %d allocations a step", c.what, bytes, allocs)
		if bytes > 8<<10 {
			t.Errorf("%s allocates %d bytes a step on %s, want ≤ 8 KB", c.what, bytes, d.Name())
		}
	}
	if _, _, err := tr.Flush(); err != nil {
		t.Fatal(err)
	}
}

// TestDevicePush trains on the device with Push, which returns each step's
// loss one step late, against Step on a second copy of the model: the same
// kernels in the same order give the same bits, so each loss that comes
// back late is exactly the one Step returned for its step, and the
// parameters end equal. Between two batches that alternate (so the inputs
// go in at every step) a step allocates nothing, never blocks in a read or
// a write, reads back 8 bytes (the loss and the norm) and waits at most once
// (for the step before's loss). A NaN parameter makes the step's loss NaN:
// it comes back one Push later as a *LossError naming the step, that step
// and the one pushed after it change nothing and are taken back, and once
// the parameter is repaired the updates apply again.
func TestDevicePush(t *testing.T) {
	d := devicetest.OpenCL(t)
	cfg := tiny("gru", "birnn", "bahdanau", "concat")
	cfg.Dtype = "float32"
	rng := rand.New(rand.NewPCG(5, 6))
	var bs []*Batch
	for range 2 {
		src, tgt := reversal(rng, 3, 2, 5)
		b, err := NewBatch(src, tgt)
		if err != nil {
			t.Fatal(err)
		}
		bs = append(bs, b)
	}
	if bs[0].SrcLen() != bs[1].SrcLen() || bs[0].TgtLen() != bs[1].TgtLen() {
		t.Fatalf("the batches differ in shape")
	}
	trainer := func() *Trainer { return trainerOn(t, cfg, Optimizer{Name: "adam", LR: 0.01, Clip: 0.5}, d.Backend()) }
	ts, tp := trainer(), trainer()
	const steps = 6
	want := make([]float64, steps+1)
	for s := 1; s <= steps; s++ {
		l, err := ts.Step(bs[s%2])
		if err != nil {
			t.Fatal(err)
		}
		want[s] = l
	}
	var before, after device.Traffic
	for s := 1; s <= steps; s++ {
		if s == 2 {
			before = d.Traffic()
		}
		got, ok, err := tp.Push(bs[s%2])
		if err != nil {
			t.Fatal(err)
		}
		if s == steps {
			after = d.Traffic()
		}
		if ok != (s > 1) || (ok && (got.Step != s-1 || got.Loss != want[s-1])) {
			t.Errorf("Push of step %d returned %+v, %v; want step %d's loss %v", s, got, ok, s-1, want[s-1])
		}
	}
	got, ok, err := tp.Flush()
	if err != nil || !ok || got.Step != steps || got.Loss != want[steps] {
		t.Errorf("Flush returned %+v, %v, %v; want step %d's loss %v", got, ok, err, steps, want[steps])
	}
	if _, ok, _ := tp.Flush(); ok {
		t.Errorf("a second Flush returned a loss")
	}
	n := int64(steps - 1) // steps 2 to 6
	if out := after.BytesOut - before.BytesOut; out != 8*n {
		t.Errorf("%d bytes out in %d steps, want %d (the loss and the norm, 8 bytes a step)", out, n, 8*n)
	}
	if in := after.BytesIn - before.BytesIn; in == 0 {
		t.Errorf("no bytes in, though the batch changed at every step")
	}
	if a := after.Allocs - before.Allocs; a != 0 {
		t.Errorf("%d buffers allocated in %d steps, want 0", a, n)
	}
	if r, w := after.BlockingReads-before.BlockingReads, after.BlockingWrites-before.BlockingWrites; r != 0 || w != 0 {
		t.Errorf("%d blocking reads, %d blocking writes in %d steps, want none", r, w, n)
	}
	if w := after.Waits - before.Waits; w > n {
		t.Errorf("the host waited %d times in %d steps, want at most one a step", w, n)
	}
	t.Logf("steps 2 to %d: %d bytes in, %d out, %d launches, %d waits", steps, after.BytesIn-before.BytesIn,
		after.BytesOut-before.BytesOut, after.Launches-before.Launches, after.Waits-before.Waits)
	for _, tr := range []*Trainer{ts, tp} {
		if err := tr.Model.Sync(); err != nil {
			t.Fatal(err)
		}
	}
	for i, p := range tp.Model.Params() {
		if q := ts.Model.Params()[i]; !slices.Equal(p.Data32(), q.Data32()) {
			t.Errorf("%s differs between Push and Step", p.Name)
		}
	}

	// a NaN loss at step 7, found when step 8 is pushed
	p0 := tp.Model.Params()[0]
	snap := make([][]float32, len(tp.Model.Params()))
	for i, p := range tp.Model.Params() {
		snap[i] = slices.Clone(p.Data32())
	}
	keep := p0.Data32()[0]
	p0.Data32()[0] = float32(math.NaN())
	snap[0][0] = p0.Data32()[0]
	tp.Model.paramsChanged()
	if _, ok, err := tp.Push(bs[1]); ok || err != nil {
		t.Fatalf("Push of step 7 returned a loss (%v) or %v", ok, err)
	}
	_, _, err = tp.Push(bs[0])
	var le *LossError
	if !errors.As(err, &le) || le.Step != steps+1 || !math.IsNaN(le.Loss) {
		t.Fatalf("Push of step 8 returned %v, want a NaN loss at step %d", err, steps+1)
	}
	if tp.Steps != steps || tp.Opt.t != steps {
		t.Errorf("after the NaN loss: %d steps, optimizer at %d; want both %d", tp.Steps, tp.Opt.t, steps)
	}
	if err := tp.Model.Sync(); err != nil {
		t.Fatal(err)
	}
	for i, p := range tp.Model.Params() {
		if !slices.EqualFunc(p.Data32(), snap[i], func(a, b float32) bool { return a == b || a != a && b != b }) {
			t.Errorf("%s changed in the steps of the NaN loss", p.Name)
		}
	}
	p0.Data32()[0] = keep
	tp.Model.paramsChanged()
	if _, err := tp.Step(bs[1]); err != nil {
		t.Fatal(err)
	}
	if err := tp.Model.Sync(); err != nil {
		t.Fatal(err)
	}
	if slices.Equal(tp.Model.Params()[1].Data32(), snap[1]) {
		t.Errorf("the updates did not apply again after the parameter was repaired")
	}
}
