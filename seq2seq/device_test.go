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
				host, onDev := NewGraphCache(0), NewGraphCacheOn(0, d)
				defer host.Close()
				defer onDev.Close()
				wantLoss, want, err := m.Loss(b, rand.New(rand.NewPCG(1, 1)), host)
				if err != nil {
					t.Fatal(err)
				}
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
