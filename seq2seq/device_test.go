package seq2seq

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/attnzoo/attnzoo/internal/device"
	"github.com/attnzoo/attnzoo/internal/device/devicetest"
	"github.com/attnzoo/attnzoo/scorers"
)

// deviceCases: every scorer × decoder with the gru and birnn, the lstm and
// rnn cells, and the cnn encoder with its gate and penalty, in float32.
func deviceCases() []Config {
	var cases []Config
	for _, s := range scorers.Names() {
		for _, d := range DecoderNames() {
			cases = append(cases, tiny("gru", "birnn", d, s))
		}
	}
	cases = append(cases, tiny("lstm", "rnn", "luong", "general"), tiny("rnn", "birnn", "bahdanau", "dot"),
		tinyCNN("lstm", "bahdanau", "concat"), tinyCNN("gru", "luong", "dot"))
	for i := range cases {
		cases[i].Dtype = "float32"
	}
	return cases
}

// TestDeviceGradients: the loss and every parameter's gradient of the whole
// model computed on a device (gx.MachineOn) agree with the host machine's.
// Where an op has no kernel on the device it runs on the host from values
// read back, so the two differ only by float32 rounding in another order
// (the device's kernels and its SGEMM): |device − host| ≤ 1e-5·|host| +
// 1e-6·max|host| over every gradient of the model. The second term covers
// entries that are sums cancelling to far below the terms summed (the
// concat scorer's attention weights: ~1e-8 from terms ~1e-3).
func TestDeviceGradients(t *testing.T) {
	devicetest.Each(t, func(t *testing.T, d device.Kernels) {
		for _, cfg := range deviceCases() {
			t.Run(fmt.Sprintf("%s/%s/%s/%s", cfg.Cell, cfg.Encoder, cfg.Decoder, cfg.Scorer), func(t *testing.T) {
				m, err := New(cfg)
				if err != nil {
					t.Fatal(err)
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
				host, onDev := NewGraphCache(0), NewGraphCache(0)
				defer host.Close()
				defer onDev.Close()
				wantLoss, want, err := m.Loss(b, rand.New(rand.NewPCG(1, 1)), host)
				if err != nil {
					t.Fatal(err)
				}
				if err := m.UseDevice(d); err != nil {
					t.Fatal(err)
				}
				defer m.UseDevice(nil)
				gotLoss, got, err := m.Loss(b, rand.New(rand.NewPCG(1, 1)), onDev)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(gotLoss-wantLoss) > 1e-5*math.Abs(wantLoss) {
					t.Errorf("loss %v on %s, %v on the host", gotLoss, d.Name(), wantLoss)
				}
				scale := 0.0
				for i := range want {
					for _, v := range want[i] {
						scale = math.Max(scale, math.Abs(v))
					}
				}
				worst := 0.0
				for i, p := range m.Params() {
					for j := range want[i] {
						diff := math.Abs(got[i][j] - want[i][j])
						worst = math.Max(worst, diff/scale)
						if diff > 1e-5*math.Abs(want[i][j])+1e-6*scale {
							t.Errorf("%s[%d]: %v on %s, %v on the host", p.Name, j, got[i][j], d.Name(), want[i][j])
							break
						}
					}
				}
				t.Logf("worst |device − host| / max|host| = %.2g", worst)
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
			t.Logf("per step: %.0f bytes in, %.0f out, %.0f launches; host ops %v", float64(after.BytesIn-before.BytesIn)/4,
				float64(after.BytesOut-before.BytesOut)/4, float64(after.Launches-before.Launches)/4, td.Cache.HostOps())
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
