package seq2seq

import (
	"math/rand/v2"
	"testing"

	"github.com/attnzoo/attnzoo/internal/device/devicetest"
)

// TestDeviceOpBounds: one training step's loss and gradients of a small
// model on the device, every primitive the machine ran checked against the
// cpu's on the same inputs within its derived bound.
func TestDeviceOpBounds(t *testing.T) {
	d := devicetest.OpenCL(t)
	for _, cfg := range []Config{tiny("rnn", "birnn", "bahdanau", "concat"), tiny("lstm", "birnn", "luong", "dot")} {
		t.Run(cfg.Decoder+"/"+cfg.Scorer, func(t *testing.T) {
			cfg.Dtype = "float32"
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
			w := devicetest.NewReplay(t, d.Backend())
			if err := m.UseDevice(w); err != nil {
				t.Fatal(err)
			}
			defer m.UseDevice(nil)
			c := NewGraphCache(0)
			defer c.Close()
			if _, _, err := m.Loss(b, rand.New(rand.NewPCG(1, 1)), c); err != nil {
				t.Fatal(err)
			}
			w.Report(t)
		})
	}
}
