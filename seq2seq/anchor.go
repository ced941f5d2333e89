package seq2seq

import "math/rand/v2"

// AnchorConfig is the toy-reverse speed anchor of bench/README.md:
// vocabulary 32, source 12, target 13, batch 64, embedding 64, hidden 128,
// unidirectional GRU encoder, GRU decoder with Bahdanau (concat) attention,
// A = 128, float32: the bridge s₀ = tanh(W h_S + b), the additive score
// with its bias, the attentional layer tanh(W_s s + W_c c + b) and the
// vocabulary layer, as bench/pytorch/reverse.py builds it in PyTorch.
func AnchorConfig() Config {
	return Config{Cell: "gru", Encoder: "rnn", Decoder: "bahdanau", Scorer: "concat",
		SrcVocab: 32, TgtVocab: 32, Embed: 64, Hidden: 128, Attention: 128, MaxSrcLen: 12, Dtype: "float32", Seed: 1}
}

// AnchorBatch draws one batch of the anchor workload: 64 sources of 12
// tokens from the 28 ids after the reserved ones, and their reversals.
func AnchorBatch(rng *rand.Rand) *Batch {
	src := make([][]int, 64)
	tgt := make([][]int, 64)
	for i := range src {
		src[i] = make([]int, 12)
		tgt[i] = make([]int, 12)
		for j := range src[i] {
			src[i][j] = 4 + rng.IntN(28)
		}
		for j := range tgt[i] {
			tgt[i][j] = src[i][11-j]
		}
	}
	b, _ := NewBatch(src, tgt)
	return b
}
