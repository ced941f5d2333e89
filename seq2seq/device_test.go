package seq2seq

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/attnzoo/attnzoo/cells"
	"github.com/attnzoo/attnzoo/internal/device"
	"github.com/attnzoo/attnzoo/internal/device/devicetest"
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
	cases = append(cases, tinyCNN("lstm", "bahdanau", "concat"), tinyCNN("gru", "luong", "dot"))
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
	devicetest.Each(t, func(t *testing.T, d device.Kernels) {
		for _, cfg := range deviceCases() {
			scorer := cfg.Scorer
			if h := cfg.ScorerSettings["heads"]; h > 1 {
				scorer += fmt.Sprintf("×%g", h)
			}
			t.Run(fmt.Sprintf("%s/%s/%s/%s/%s", cfg.Cell, cfg.Encoder, cfg.Decoder, scorer, cfg.Normalizer), func(t *testing.T) {
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
func TestDeviceTraining(t *testing.T) {
	d := devicetest.OpenCL(t)
	for _, opt := range []string{"adam", "rmsprop", "sgd"} {
		t.Run(opt, func(t *testing.T) {
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
				o, err := NewOptimizer(Optimizer{Name: opt, LR: 0.01, Clip: 0.5})
				if err != nil {
					t.Fatal(err)
				}
				return o
			}
			th, td := NewTrainer(host, newOpt(), 1), NewTrainer(dev, newOpt(), 1)
			defer th.Cache.Close()
			defer td.Cache.Close()
			if err := dev.UseDevice(d); err != nil {
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
			// every op of this model has a kernel; per step the loss and one
			// sum of squares per parameter come out, and at most the batch
			// goes in (source ids, mask and pool weights [B,S]; target
			// inputs, outputs and weights [B,T]: here the same batch each
			// step, so nothing is sent again)
			if ops := td.Cache.HostOps(); len(ops) > 0 {
				t.Errorf("ops on the host: %v", ops)
			}
			if want := int64(4 * (1 + len(dev.Params()))); out != want {
				t.Errorf("%d bytes out per step, want %d (the loss and %d sums of squares)", out, want, len(dev.Params()))
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

// TestDeviceStepAllocs: the anchor's training graph (AnchorConfig,
// AnchorBatch: 825 kernel launches and CLBlast calls a step on pocl) runs
// forward and backward on the OpenCL device allocating at most 8 KB of
// host memory a step (issue 25's bar), measured as runtime.MemStats'
// TotalAlloc over 5 steps after 2 that compile the graph and set up its
// launch sites. Before launches stopped allocating (launches through
// purego's reflection, arguments boxed) a whole step allocated 852 KB in
// 31,449 allocations. The whole step's bytes, the optimizer's too, are
// logged.
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
	if err := m.UseDevice(d); err != nil {
		t.Fatal(err)
	}
	defer m.UseDevice(nil)
	b := AnchorBatch(rand.New(rand.NewPCG(1, 2)))
	graph := func() error {
		_, _, err := m.runTrain(b, tr.rng, tr.Cache)
		return err
	}
	step := func() error {
		_, err := tr.Step(b)
		return err
	}
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
	gb, ga := perStep(graph)
	sb, sa := perStep(step)
	t.Logf("host allocation per step: the graph %d bytes in %d allocations; the whole step %d bytes in %d", gb, ga, sb, sa)
	if gb > 8<<10 {
		t.Errorf("the training graph allocates %d bytes a step on %s, want ≤ 8 KB", gb, d.Name())
	}
}
