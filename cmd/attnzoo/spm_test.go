package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSPMCommands encodes the shipped book sentences with the shipped
// unigram model and decodes them back; spm_encode 0.1.97 printed the
// expected pieces and spm_decode turned them back into the sentences,
// case-folded as the model's nmt_nfkc_cf does
// (tasks/subword/testdata/spm/README.md).
func TestSPMCommands(t *testing.T) {
	td := filepath.Join("..", "..", "tasks", "subword", "testdata", "spm")
	dir := t.TempDir()
	model, text := filepath.Join(td, "unigram-1000.model"), filepath.Join(td, "text.txt")
	pieces := filepath.Join(dir, "pieces")
	if _, stderr, code, err := runEval(dir, "spm", "encode", "--model", model, "-i", text, "-o", pieces); code != 0 {
		t.Fatalf("encode: exit %d, %v, %s", code, err, stderr)
	}
	got, _ := os.ReadFile(pieces)
	want, _ := os.ReadFile(filepath.Join(td, "text.unigram-1000.pieces"))
	if len(want) == 0 || string(got) != string(want) {
		t.Errorf("encode: output differs from text.unigram-1000.pieces")
	}
	decoded, stderr, code, err := runEval(dir, "spm", "decode", "--model", model, "-i", pieces)
	folded, _ := os.ReadFile(filepath.Join(td, "text.unigram-1000.decoded"))
	if code != 0 || len(folded) == 0 || decoded != string(folded) {
		t.Errorf("decode: exit %d, %v, %s; output differs from text.unigram-1000.decoded", code, err, stderr)
	}

	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"spm", "encode"}, 2, "spm encode: missing --model"},
		{[]string{"spm", "decode", "-i", text}, 2, "spm decode: missing --model"},
		{[]string{"spm", "frob"}, 2, `unknown subcommand "frob" (have: decode, encode)`},
		{[]string{"spm", "encode", "--model", filepath.Join(td, "char.model"), "-i", text}, 1, "char.model: model_type char is not supported (have: unigram, bpe)"},
		{[]string{"spm", "encode", "--model", text}, 1, "text.txt: not a SentencePiece model"},
		{[]string{"spm", "encode", "--model", model, "-i", filepath.Join(td, "special.txt")}, 1, "special.txt:15: invalid UTF-8"},
	} {
		_, _, code, err := runEval(dir, c.args...)
		if code != c.code || err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%v: exit %d, error %v; want exit %d and %q", c.args, code, err, c.code, c.msg)
		}
	}
}
