package seq2seq

import (
	"math"
	"testing"
)

// TestPadToKeepsLoss: padding is masked, so a batch padded beyond its
// longest source and target has the unpadded batch's loss and gradients
// (exactly: the padded positions add zeros and get zero weight), for each
// encoder and decoder.
func TestPadToKeepsLoss(t *testing.T) {
	src := [][]int{{4, 5, 6}, {7, 4}}
	tgt := [][]int{{5, 6}, {4, 7, 5, 6}}
	for _, enc := range []string{"rnn", "birnn"} {
		for _, dec := range []string{"bahdanau", "luong"} {
			m, err := New(Config{Cell: "gru", Encoder: enc, Decoder: dec, Scorer: "general", Normalizer: "softmax",
				Init: "final", SrcVocab: 8, TgtVocab: 8, Embed: 4, Hidden: 4, Attention: 4, MaxSrcLen: 10,
				Dtype: "float64", Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			b, _ := NewBatch(src, tgt)
			p, _ := NewBatch(src, tgt)
			p.PadTo(8, 9)
			if p.SrcLen() != 8 || p.TgtLen() != 9 || b.SrcLen() != 3 || b.TgtLen() != 5 {
				t.Fatalf("lengths: padded %d×%d, plain %d×%d", p.SrcLen(), p.TgtLen(), b.SrcLen(), b.TgtLen())
			}
			l1, g1, err := m.Loss(b, nil, NewGraphCache(0))
			if err != nil {
				t.Fatal(err)
			}
			l2, g2, err := m.Loss(p, nil, NewGraphCache(0))
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(l1-l2) > 1e-12 {
				t.Errorf("%s/%s: loss %v padded, %v not", enc, dec, l2, l1)
			}
			for i := range g1 {
				for j := range g1[i] {
					if math.Abs(g1[i][j]-g2[i][j]) > 1e-12 {
						t.Fatalf("%s/%s: gradient %d[%d]: %v padded, %v not", enc, dec, i, j, g2[i][j], g1[i][j])
					}
				}
			}
		}
	}
}
