package seq2seq

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestGreedyScoreIsNLL: a greedy hypothesis's score (the sum of its
// tokens' log-probabilities, </s> included) equals minus the teacher-forced
// NLL of the same tokens, for every encoder kind × cell: the decoding graph
// starts from the state the training graph starts from (an LSTM's c_0
// included).
func TestGreedyScoreIsNLL(t *testing.T) {
	for _, enc := range []string{"birnn", "patches", "cnn", "birnn/zero", "cnn/zero"} {
		for _, cell := range []string{"gru", "lstm"} {
			t.Run(enc+"/"+cell, func(t *testing.T) {
				init := ""
				enc, zero := strings.CutSuffix(enc, "/zero")
				if zero {
					init = "zero"
				}
				cfg := Config{Cell: cell, Encoder: enc, Decoder: "bahdanau", Scorer: "concat", SrcVocab: 14, TgtVocab: 14, Init: init,
					Embed: 8, Hidden: 16, Attention: 8, MaxSrcLen: 8, Regions: 4, RegionSize: 6, Dtype: "float64", Seed: 2}
				switch enc {
				case "birnn":
					cfg.Regions, cfg.RegionSize = 0, 0
				case "cnn": // 8×8×2 images → a 2×2 grid: 4 regions of 6
					cfg = withSetting(cfg, "conv", []int{5, 6})
					cfg.ImageC, cfg.ImageH, cfg.ImageW = 2, 8, 8
				}
				m, err := New(cfg)
				if err != nil {
					t.Fatal(err)
				}
				var b *Batch
				switch enc {
				case "patches":
					b = regionBatch(rand.New(rand.NewPCG(1, 1)), 3, 4, 6)
				case "cnn":
					b = imageBatch(rand.New(rand.NewPCG(1, 1)), 3, 8, 8, 2, 4, 0, 14)
				default:
					src, _ := reversal(rand.New(rand.NewPCG(1, 1)), 3, 3, 6)
					b, _ = NewBatch(src, nil)
				}
				hs, err := m.Greedy(b, 5, NewGraphCache(0))
				if err != nil {
					t.Fatal(err)
				}
				for i, h := range hs {
					var one *Batch
					switch enc {
					case "patches":
						one, _ = NewRegionBatch(b.Values[i:i+1], 4, 6, [][]int{h.Tokens})
					case "cnn":
						one, _ = NewImageBatch(b.Values[i:i+1], 4, 8*8*2, [][]int{h.Tokens})
					default:
						one, _ = NewBatch([][]int{b.Src[i][:b.SrcLens()[i]]}, [][]int{h.Tokens})
					}
					nll, _, err := m.NLL(one, NewGraphCache(0))
					if err != nil {
						t.Fatal(err)
					}
					if d := h.Score + nll; d > 1e-9 || d < -1e-9 {
						t.Errorf("input %d: greedy score %.12g, −NLL %.12g", i, h.Score, -nll)
					}
				}
			})
		}
	}
}
