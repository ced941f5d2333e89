package seq2seq

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestForcedAttentionIsDecodingAttention: the teacher-forced attention of
// the tokens greedy decoding produced equals, row for row, the attention
// the decoding graph had while producing them (Hypothesis.Align: one row
// per token, then </s>'s): two graphs built apart (the loss's, unrolled
// with teacher forcing, and the decoder's, fed its own argmax) agree, for
// both decoders, sources of several lengths in one padded batch, and a
// model with dropout (which forced decoding leaves out).
func TestForcedAttentionIsDecodingAttention(t *testing.T) {
	for _, c := range []struct{ scorer, decoder string }{{"concat", "bahdanau"}, {"general", "luong"}} {
		t.Run(c.scorer+"/"+c.decoder, func(t *testing.T) {
			cfg := smallConfig(c.scorer, c.decoder)
			cfg.Dtype, cfg.Dropout = "float64", 0.3
			m, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			src, _ := reversal(rand.New(rand.NewPCG(3, 3)), 4, 3, 8)
			b, _ := NewBatch(src, nil)
			hs, err := m.Greedy(b, 6, NewGraphCache(0))
			if err != nil {
				t.Fatal(err)
			}
			tgt := make([][]int, len(hs))
			for i, h := range hs {
				tgt[i] = h.Tokens
			}
			fb, _ := NewBatch(src, tgt)
			got, err := m.ForcedAttention(fb, NewGraphCache(0))
			if err != nil {
				t.Fatal(err)
			}
			for i, h := range hs {
				if len(got[i]) != len(h.Tokens)+1 {
					t.Fatalf("source %d: %d forced rows for %d tokens + </s>", i, len(got[i]), len(h.Tokens))
				}
				for r := range min(len(h.Align), len(got[i])) {
					sum := 0.0
					for s, w := range got[i][r] {
						sum += w
						if d := math.Abs(w - h.Align[r][s]); d > 1e-9 {
							t.Fatalf("source %d row %d col %d: forced %.12g, decoding %.12g", i, r, s, w, h.Align[r][s])
						}
					}
					if len(got[i][r]) != len(src[i]) || math.Abs(sum-1) > 1e-9 {
						t.Errorf("source %d row %d: %d weights summing to %g, want %d summing to 1", i, r, len(got[i][r]), sum, len(src[i]))
					}
				}
			}
		})
	}
}

// TestForcedAttentionNeedsTargets: a batch without targets is an error.
func TestForcedAttentionNeedsTargets(t *testing.T) {
	m, _ := New(smallConfig("dot", "bahdanau"))
	b, _ := NewBatch([][]int{{4, 5}}, nil)
	if _, err := m.ForcedAttention(b, NewGraphCache(0)); err == nil {
		t.Error("no error for a batch without targets")
	}
}
