package seq2seq

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/attnzoo/attnzoo/internal/backend/minimal"
)

func TestMinimalDeviceTraining(t *testing.T) {
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
			if err := dev.To(minimal.New("minimal")); err != nil {
				t.Fatal(err)
			}
			defer dev.To(nil)
			for step := 0; step < 5; step++ {
				lh, err := th.Step(b)
				if err != nil {
					t.Fatal(err)
				}
				ld, err := td.Step(b)
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("step %d: %v %v %g", step, lh, ld, math.Abs(lh-ld)/lh)
			}
			if err := dev.Sync(); err != nil {
				t.Fatal(err)
			}
			worst := 0.0
			for i, p := range dev.Params() {
				q := host.Params()[i]
				for j := 0; j < p.Size(); j++ {
					worst = max(worst, math.Abs(p.At(j)-q.At(j)))
				}
			}
			t.Logf("worst param diff %g", worst)
		})
	}
}
