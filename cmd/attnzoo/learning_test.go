package main

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/attnzoo/attnzoo/seq2seq"
)

// TestTorchSameTraining: attnzoo's training and bench/pytorch/learning.py's
// are one model and one update rule. A small model of the corpus workload
// (GRU birnn encoder, Bahdanau decoder, concat scorer, the default
// initialisation) trains 20 steps with Adam and global-norm clipping on
// batches of uneven lengths (some padded further, as [train] bucket pads
// them); its parameters at step 0 are copied into the PyTorch model, which
// trains on the same batches (--only replay). Every step's loss agrees: to
// 1e-9 relative in float64, where the two differ only in summation order;
// in float32 to 2e-5 relative (a few float32 roundings, 6e-8 each, carried
// through 20 updates). The learning rate 0.02 and clip 0.45 (the norms run 0.3-0.6) make the steps
// large and clip some of them (checked), so a difference in Adam's ε, its
// bias correction, the clipping or the loss's normalisation over tokens
// would show in the losses after the first.
func TestTorchSameTraining(t *testing.T) {
	py := torchPython(t)
	for _, tc := range []struct {
		dtype string
		tol   float64
	}{{"float64", 1e-9}, {"float32", 2e-5}} {
		t.Run(tc.dtype, func(t *testing.T) {
			const E, H, SV, TV, steps, lr, clip = 5, 6, 11, 9, 20, 0.02, 0.45
			cfg := seq2seq.DefaultConfig()
			cfg.Scorer, cfg.Embed, cfg.Hidden, cfg.Attention = "concat", E, H, H
			cfg.SrcVocab, cfg.TgtVocab, cfg.MaxSrcLen, cfg.Dtype, cfg.Seed = SV, TV, 8, tc.dtype, 7
			m, err := seq2seq.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			params := map[string][]float64{}
			for _, p := range m.Params() {
				params[p.Name] = p.Float64s()
			}
			opt, err := seq2seq.NewOptimizer(seq2seq.Optimizer{Name: "adam", LR: lr, Clip: clip})
			if err != nil {
				t.Fatal(err)
			}
			tr := seq2seq.NewTrainer(m, opt, 1)
			rng := rand.New(rand.NewPCG(5, 6))
			seq := func(vocab int) []int {
				s := make([]int, 1+rng.IntN(6))
				for i := range s {
					s[i] = 4 + rng.IntN(vocab-4) // ids 0-3 are <pad> <unk> <s> </s>
				}
				return s
			}
			type batchJSON struct {
				Src    [][]int `json:"src"`
				TgtIn  [][]int `json:"tgt_in"`
				TgtOut [][]int `json:"tgt_out"`
			}
			var batches []batchJSON
			var losses []float64
			clipped := 0
			for step := 0; step < steps; step++ {
				var src, tgt [][]int
				for i := 0; i < 4; i++ {
					src, tgt = append(src, seq(SV)), append(tgt, seq(TV))
				}
				b, err := seq2seq.NewBatch(src, tgt)
				if err != nil {
					t.Fatal(err)
				}
				if step%3 == 0 {
					b.PadTo(8, 8)
				}
				batches = append(batches, batchJSON{b.Src, b.TgtIn, b.TgtOut})
				loss, err := tr.Step(b)
				if err != nil {
					t.Fatal(err)
				}
				if opt.LastNorm > clip {
					clipped++
				}
				losses = append(losses, loss)
			}
			if clipped == 0 || clipped == steps {
				t.Fatalf("%d of %d steps clipped: want some clipped and some not", clipped, steps)
			}
			data, _ := json.Marshal(map[string]any{"embed": E, "hidden": H, "src_vocab": SV, "tgt_vocab": TV, "lr": lr,
				"clip": clip, "dtype": tc.dtype, "params": params, "batches": batches})
			file := filepath.Join(t.TempDir(), "replay.json")
			os.WriteFile(file, data, 0o644)
			cmd := exec.Command(py, filepath.Join("..", "..", "bench", "pytorch", "learning.py"), "--only", "replay", file)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr.String())
			}
			var theirs struct {
				Losses []float64 `json:"losses"`
			}
			if err := json.Unmarshal(out, &theirs); err != nil || len(theirs.Losses) != steps {
				t.Fatalf("%v: %s", err, out)
			}
			for i, l := range losses {
				if math.Abs(l-theirs.Losses[i]) > tc.tol*math.Abs(theirs.Losses[i]) {
					t.Errorf("step %d: attnzoo loss %.12g, pytorch %.12g", i+1, l, theirs.Losses[i])
				}
			}
			// the targets' ids are uniform over 5 of the 9, so the loss
			// starts near ln 9 = 2.20 and can fall towards ln 5 = 1.61
			if losses[steps-1] > 0.85*losses[0] {
				t.Errorf("loss %.4g at step 1, %.4g at step %d: the steps barely moved the model", losses[0], losses[steps-1], steps)
			}
		})
	}
}
