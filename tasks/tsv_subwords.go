package tasks

import (
	"fmt"
	"os"

	"github.com/attnzoo/attnzoo/tasks/subword"
)

// Side is how one side of a tsv task's pairs is split into tokens, after
// TSVFormat's normalisation (’ to ', lowercasing): words, white-space
// tokens or characters as TSVFormat splits them, BPE pieces of the word
// (or white-space) tokens in subword-nmt's "@@" convention, or the pieces
// of a SentencePiece BPE or unigram model applied to the normalised text.
type Side struct {
	Char, Space bool // as TSVFormat's; neither: word tokens
	BPE         *subword.BPE
	SPM         *subword.SentencePieceModel
}

// Scheme says how the side's tokens mark words.
func (s Side) Scheme() subword.Scheme {
	switch {
	case s.BPE != nil:
		return subword.BPEPieces
	case s.SPM != nil:
		return subword.SentencePiece
	}
	return subword.Words
}

// NewTokenFunc returns a TokenFunc for the side; f gives the
// normalisation (Lowercase).
func (s Side) NewTokenFunc(f TSVFormat) TokenFunc {
	f.Char, f.Space = s.Char, s.Space
	switch {
	case s.SPM != nil:
		var norm []byte
		return func(text []byte, yield func([]byte)) {
			norm = normalize(norm[:0], text, f.Lowercase)
			for _, p := range s.SPM.Encode(string(norm)) {
				yield([]byte(p))
			}
		}
	case s.BPE != nil:
		words := f.NewTokenFunc()
		var ws []string
		return func(text []byte, yield func([]byte)) {
			ws = ws[:0]
			words(text, func(tok []byte) { ws = append(ws, string(tok)) })
			for _, p := range s.BPE.Segment(ws) {
				yield([]byte(p))
			}
		}
	}
	return f.NewTokenFunc()
}

// readSide reads the keys PREFIX_tokenizer (default def: "word", "space"
// or "char"), PREFIX_bpe_codes and PREFIX_spm_model of one side, loading
// the codes or model a subword tokenizer names.
func readSide(r *optionReader, prefix, def string) Side {
	tok := r.String(prefix+"_tokenizer", def)
	codes := r.String(prefix+"_bpe_codes", "")
	model := r.String(prefix+"_spm_model", "")
	var s Side
	switch tok {
	case "word":
	case "space":
		s.Space = true
	case "char":
		s.Char = true
	case "bpe":
		if codes == "" {
			r.Check(false, `%s_tokenizer = "bpe" needs %s_bpe_codes, a codes file from attnzoo bpe learn or subword-nmt learn-bpe`, prefix, prefix)
			break
		}
		b, err := loadBPE(codes)
		r.Check(err == nil, "%s_bpe_codes: %v", prefix, err)
		s.BPE = b
		s.Space = def == "space" // BPE on the white-space tokens of pre-tokenized text
	case "sentencepiece":
		if model == "" {
			r.Check(false, `%s_tokenizer = "sentencepiece" needs %s_spm_model, a SentencePiece .model file (BPE or unigram)`, prefix, prefix)
			break
		}
		m, err := subword.LoadSentencePiece(model)
		r.Check(err == nil, "%s_spm_model: %v", prefix, err)
		s.SPM = m
	default:
		r.Check(false, `%s_tokenizer: must be "word", "space", "char", "bpe" or "sentencepiece", got %q`, prefix, tok)
	}
	r.Check(codes == "" || tok == "bpe", `%s_bpe_codes: only with %s_tokenizer = "bpe" (got %q)`, prefix, prefix, tok)
	r.Check(model == "" || tok == "sentencepiece", `%s_spm_model: only with %s_tokenizer = "sentencepiece" (got %q)`, prefix, prefix, tok)
	return s
}

// Subworded is implemented by tasks whose tokens may be subword pieces:
// Schemes says how each side's tokens mark words (what Load puts in
// Data.SrcScheme and Data.TgtScheme), without loading the data.
type Subworded interface {
	Schemes() (src, tgt subword.Scheme)
}

// Schemes says how the source and target tokens mark words.
func (t *tsvTask) Schemes() (src, tgt subword.Scheme) {
	return t.schemes[0], t.schemes[1]
}

func loadBPE(path string) (*subword.BPE, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := subword.ReadBPE(f, path, 0)
	if err != nil {
		return nil, err
	}
	if b.Merges() == 0 {
		return nil, fmt.Errorf("%s holds no merges", path)
	}
	return b, nil
}

// wordLen is the number of words of one side's tokens: its gold links
// (test_align) index words, not pieces.
func (t *tsvTask) wordLen(side int, n int, tok func(i int) string) int {
	if t.schemes[side] == subword.Words || n == 0 {
		return n
	}
	toks := make([]string, n)
	for i := range toks {
		toks[i] = tok(i)
	}
	of := t.schemes[side].WordOf(toks)
	return of[n-1] + 1
}
