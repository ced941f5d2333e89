package seq2seq

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/attnzoo/attnzoo/internal/device/devicetest"
	"github.com/attnzoo/attnzoo/scorers"
)

// opBoundCases: the additive (concat) and the dot score with each
// decoder, over the three cells (the gru's fused sequence, the lstm's and
// the rnn's steps), the dot score of three heads (the fused attention's
// heads: RepeatRows' mask, each head's softmax, their mean), and label
// smoothing.
func opBoundCases() []Config {
	smoothed := tiny("gru", "birnn", "bahdanau", "general")
	smoothed.LabelSmoothing = 0.1
	heads := tiny("gru", "birnn", "luong", "projected-dot")
	heads.ScorerSettings = scorers.Values{"attention": 6, "heads": 3}
	cases := []Config{tiny("gru", "birnn", "bahdanau", "concat"), tiny("gru", "birnn", "luong", "dot"),
		tiny("rnn", "birnn", "bahdanau", "concat"), tiny("lstm", "birnn", "luong", "dot"), heads, smoothed}
	for i := range cases {
		cases[i].Dtype = "float32"
	}
	return cases
}

// opBoundLoss runs one training step's loss and gradients of cfg's model
// on the device through rp (Replay).
func opBoundLoss(t *testing.T, cfg Config, rp *Replay) {
	t.Helper()
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	src, tgt := reversal(rng, 3, 2, 5)
	b, err := NewBatch(src, tgt)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.UseDevice(rp); err != nil {
		t.Fatal(err)
	}
	defer m.UseDevice(nil)
	c := NewGraphCache(0)
	defer c.Close()
	if _, _, err := m.Loss(b, rand.New(rand.NewPCG(1, 1)), c); err != nil {
		t.Fatal(err)
	}
}

// TestDeviceOpBounds: one training step's loss and every parameter's
// gradient on the device, checked along the machine's own sequence of
// ops: every primitive the device ran (each step's forward, the
// gradients' products and sums, the fused attention, the gru's
// recurrences, the cross-entropy) is run again on the cpu from the
// device's inputs to it, and every output value must agree within the
// primitive's derived bound (bounds_device_test.go): a few ulp of each
// value, or γ_K·Σ|terms| of each sum, where TestDeviceGradients allows
// 4× the host's float32 error end to end. The worst |Δ|/bound per
// primitive is logged.
func TestDeviceOpBounds(t *testing.T) {
	d := devicetest.OpenCL(t)
	for _, cfg := range opBoundCases() {
		t.Run(fmt.Sprintf("%s/%s/%s/h%v/ls%g", cfg.Cell, cfg.Decoder, cfg.Scorer, cfg.ScorerSettings["heads"], cfg.LabelSmoothing), func(t *testing.T) {
			rp := NewReplay(t, d.Backend())
			opBoundLoss(t, cfg, rp)
			rp.Report(t)
		})
	}
}

// errorsOf is a testing.TB that keeps its errors instead of failing.
type errorsOf struct {
	testing.TB
	errs []string
}

func (e *errorsOf) Errorf(format string, args ...any) {
	e.errs = append(e.errs, fmt.Sprintf(format, args...))
}

// TestDeviceOpBoundsCatch: the check is tight enough to catch an error
// the measured bound of the gx device tests (1e-5·|host|) lets through:
// the largest value of the first tanh off by 4e-6 of itself (its bound: 5
// ulp on the device and the cpu's tanh32 within ≈ 7u, ≈ 1e-6 of it), and
// of the first product (an encoder's input projection, K = 3 terms:
// 2γ_6·Σ|a·b| ≈ 7e-7 of it where the terms do not cancel).
func TestDeviceOpBoundsCatch(t *testing.T) {
	d := devicetest.OpenCL(t)
	for _, c := range []struct {
		prim string
		by   func(v float32) float32
	}{
		{"Map.Tanh", func(v float32) float32 { return v * (1 + 4e-6) }},
		{"Gemm", func(v float32) float32 { return v * (1 + 4e-6) }},
	} {
		t.Run(c.prim, func(t *testing.T) {
			rec := &errorsOf{TB: t}
			rp := NewReplay(rec, d.Backend())
			done := false
			rp.Fault = func(name string, _ int, dev []float32) {
				if done || name != c.prim {
					return
				}
				top, at := float32(0), 0
				for i, v := range dev {
					if a := float32(math.Abs(float64(v))); a > top {
						top, at = a, i
					}
				}
				if top > 0.1 {
					dev[at], done = c.by(dev[at]), true
				}
			}
			cfg := tiny("lstm", "birnn", "luong", "dot")
			cfg.Dtype = "float32"
			opBoundLoss(t, cfg, rp)
			if !done {
				t.Fatalf("no %s output with a value above 0.1 to change", c.prim)
			}
			if len(rec.errs) != 1 || !strings.HasPrefix(rec.errs[0], c.prim+":") {
				t.Fatalf("one value of %s changed: want one error naming it, got %q", c.prim, rec.errs)
			}
			t.Logf("caught: %s", rec.errs[0])
		})
	}
}

// TestDeviceOpBoundsTrain: two clipped training steps of each optimizer
// on the device through Replay (replay_device_test.go), which has no backend.Stepper:
// the trainer runs the update through the Optim methods (SumSquares, then
// SGD, RMSProp or Adam on each parameter), each checked against the cpu's
// on the same values within its derived bound, as the graph's primitives
// are.
func TestDeviceOpBoundsTrain(t *testing.T) {
	d := devicetest.OpenCL(t)
	for _, opt := range []string{"adam", "rmsprop", "sgd"} {
		t.Run(opt, func(t *testing.T) {
			cfg := tiny("gru", "birnn", "bahdanau", "concat")
			cfg.Dtype = "float32"
			m, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			src, tgt := reversal(rand.New(rand.NewPCG(3, 4)), 3, 2, 5)
			b, err := NewBatch(src, tgt)
			if err != nil {
				t.Fatal(err)
			}
			o, err := NewOptimizer(Optimizer{Name: opt, LR: 0.01, Clip: 0.5})
			if err != nil {
				t.Fatal(err)
			}
			tr := NewTrainer(m, o, 1)
			defer tr.Cache.Close()
			rp := NewReplay(t, d.Backend())
			if err := m.UseDevice(rp); err != nil {
				t.Fatal(err)
			}
			defer m.UseDevice(nil)
			for range 2 {
				if _, err := tr.Step(b); err != nil {
					t.Fatal(err)
				}
			}
			rp.Report(t)
		})
	}
}
