// Package subword splits words into subword pieces and joins them back:
// byte-pair encoding as subword-nmt learns and applies it (Sennrich et al.
// 2016), SentencePiece BPE and unigram models as SentencePiece 0.1.97
// encodes them, and the mapping of piece-level attention to words.
//
// Conventions: a BPE piece that does not end its word carries the separator
// "@@" (subword-nmt's apply_bpe.py), so "lowest" may become low@@ est; a
// SentencePiece piece that starts a word begins with "▁" (U+2581), so
// "lowest" may become ▁low est. Attention matrices are [target pieces ×
// source pieces], one row a target piece.
package subword
