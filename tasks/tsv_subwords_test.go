package tasks

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/attnzoo/attnzoo/tasks/subword"
)

var (
	tinyCodes = filepath.Join("..", "testdata", "tasks", "tiny.bpe-codes")
	spmModel  = filepath.Join("subword", "testdata", "spm-bpe.model")
)

// TestTSVSubwords: the source side in BPE pieces, the target side in
// SentencePiece pieces. The expected pieces were printed by subword-nmt
// 0.3.8's apply-bpe with tiny.bpe-codes ("hello ." → he@@ l@@ l@@ o .) and
// by spm_encode 0.1.97 with spm-bpe.model ("hallo." → ▁ h a l l o .).
func TestTSVSubwords(t *testing.T) {
	d := load(t, "tsv", Options{"path": tinyTSV, "src_tokenizer": "bpe", "src_bpe_codes": tinyCodes,
		"tgt_tokenizer": "sentencepiece", "tgt_spm_model": spmModel}, 1)
	if d.SrcScheme != subword.BPEPieces || d.TgtScheme != subword.SentencePiece {
		t.Errorf("schemes %v, %v; want bpe, sentencepiece", d.SrcScheme, d.TgtScheme)
	}
	found := false
	for _, exs := range splits(d) {
		for _, ex := range exs {
			if strings.Join(ex.Tgt, " ") == "▁ h a l l o ." {
				found = true
				if want := []string{"he@@", "l@@", "l@@", "o", "."}; !slices.Equal(ex.Src, want) {
					t.Errorf("source of hallo.: %q, want %q", ex.Src, want)
				}
			}
		}
	}
	if !found {
		t.Error(`no pair with target pieces "▁ h a l l o ."`)
	}
	// reverse: the German column is the source, in its own tokenizer's pieces.
	d = load(t, "tsv", Options{"path": tinyTSV, "reverse": true, "src_tokenizer": "sentencepiece", "src_spm_model": spmModel,
		"tgt_tokenizer": "bpe", "tgt_bpe_codes": tinyCodes}, 1)
	for _, exs := range splits(d) {
		for _, ex := range exs {
			if strings.Join(ex.Src, " ") == "▁ h a l l o ." && strings.Join(ex.Tgt, " ") != "he@@ l@@ l@@ o ." {
				t.Errorf("reversed: target of hallo.: %q", ex.Tgt)
			}
		}
	}
}

func TestTSVSubwordErrors(t *testing.T) {
	for _, c := range []struct {
		opts Options
		want []string
	}{
		{Options{"src_tokenizer": "bpe"}, []string{`src_tokenizer = "bpe" needs src_bpe_codes`}},
		{Options{"tgt_bpe_codes": tinyCodes}, []string{`tgt_bpe_codes: only with tgt_tokenizer = "bpe" (got "word")`}},
		{Options{"src_tokenizer": "sentencepiece", "src_spm_model": filepath.Join("subword", "testdata", "spm", "char.model")},
			[]string{"src_spm_model", "char.model: model_type char is not supported"}},
		{Options{"tgt_tokenizer": "bpe", "tgt_bpe_codes": tinyTSV}, []string{"tgt_bpe_codes", "tiny.tsv:1: a merge must be two symbols"}},
		{Options{"src_tokenizer": "wordpiece"}, []string{`src_tokenizer: must be "word", "space", "char", "bpe" or "sentencepiece", got "wordpiece"`}},
	} {
		c.opts["path"] = tinyTSV
		_, err := New("tsv", c.opts)
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%v: got %v, want an error containing %q", c.opts, err, w)
			}
		}
	}
}

// TestTSVSubwordGoldIsWords: with subword pieces, test_align's indices are
// of words: "hello ." is 2 words (5 BPE pieces: he@@ l@@ l@@ o .), so a
// link from source word 2 is outside the pair, and one from word 1 is not.
func TestTSVSubwordGoldIsWords(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string][]string{"train.tsv": {"Hello.\tHallo.", "Thank you.\tDanke."}, "dev.tsv": {"Go.\tGeh."}, "test.tsv": {"Hello.\tHallo."}})
	opts := func(gold string) Options {
		writeFiles(t, dir, map[string][]string{"test.gold": {gold}})
		in := func(name string) string { return filepath.Join(dir, name) }
		return Options{"train": in("train.tsv"), "dev": in("dev.tsv"), "test": in("test.tsv"), "test_align": in("test.gold"),
			"src_tokenizer": "bpe", "src_bpe_codes": tinyCodes}
	}
	d := load(t, "tsv", opts("1-1"), 1)
	if ex := d.Examples("test")[0]; strings.Join(ex.Src, " ") != "he@@ l@@ l@@ o ." || len(ex.Sure) != 1 {
		t.Errorf("test pair %q, links %v; want he@@ l@@ l@@ o . and 1-1", ex.Src, ex.Sure)
	}
	task, err := New("tsv", opts("2-0"))
	if err == nil {
		_, err = task.Load(1)
	}
	if err == nil || !strings.Contains(err.Error(), "test.gold:1") || !strings.Contains(err.Error(), "2 source") {
		t.Errorf("a link from source word 2 of 2: got %v, want an error naming test.gold:1 and the 2 source words", err)
	}
}
