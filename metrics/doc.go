// Package metrics scores the outputs of any sequence model: token accuracy,
// exact match, corpus BLEU and chrF (as sacreBLEU computes them, with its
// tokenizers and signatures), perplexity, and, for attention read as word
// alignment, argmax links, attention entropy and alignment error rate.
//
// Conventions: a sentence is a []string of tokens, already split, except
// for CorpusBLEUText and CorpusCHRF, which take detokenized lines as
// sacreBLEU does; an attention matrix is [][]float64 with one row per
// target position and one column per source position, so attn[t][s] is the
// weight target token t gives source token s. Alignment links are 0-based
// (Link{Src, Tgt}); the ...Base functions read and write 1-based files.
// BLEU and chrF are on sacreBLEU's 0–100 scale; every other score is a
// fraction in [0, 1] except perplexity and entropy (nats). Functions never
// panic on user input: mismatched lengths and empty corpora are errors.
package metrics
