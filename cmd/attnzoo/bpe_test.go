package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBPECommands runs learn, apply and undo on the shipped corpus; the
// expected codes and segmentation were written by subword-nmt 0.3.8
// (tasks/subword/testdata/README.md).
func TestBPECommands(t *testing.T) {
	td := filepath.Join("..", "..", "tasks", "subword", "testdata")
	dir := t.TempDir()
	codes := filepath.Join(dir, "codes")
	_, stderr, code, err := runEval(dir, "bpe", "learn", "--symbols", "500", "-i", filepath.Join(td, "corpus.txt"), "-o", codes)
	if code != 0 || stderr != "" {
		t.Fatalf("learn: exit %d, %v, %q", code, err, stderr)
	}
	same := func(got, wantFile string) {
		t.Helper()
		want, err := os.ReadFile(filepath.Join(td, wantFile))
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("output differs from %s", wantFile)
		}
	}
	got, _ := os.ReadFile(codes)
	same(string(got), "codes-500.txt")
	stdout, stderr, code, _ := runEval(dir, "bpe", "apply", "--codes", codes, "-i", filepath.Join(td, "heldout.txt"))
	if code != 0 {
		t.Fatalf("apply: exit %d: %s", code, stderr)
	}
	same(stdout, "heldout.codes-500.bpe")

	// undo gives back the text, white space normalised as apply left it:
	// the runs of spaces inside a line are one space.
	applied := filepath.Join(dir, "applied")
	os.WriteFile(applied, []byte(stdout), 0o644)
	undone, _, code, _ := runEval(dir, "bpe", "undo", "-i", applied)
	if code != 0 {
		t.Fatalf("undo: exit %d", code)
	}
	src, _ := os.ReadFile(filepath.Join(td, "heldout.txt"))
	want := strings.ReplaceAll(string(src), "  two  spaces", " two spaces")
	if undone != want {
		t.Errorf("undo: got %q, want %q", undone, want)
	}

	// An early stop is said on stderr as subword-nmt says it
	// (breaks-codes.stderr, written by subword-nmt learn-bpe -s 40).
	_, stderr, code, _ = runEval(dir, "bpe", "learn", "--symbols", "40", "-i", filepath.Join(td, "breaks.txt"), "-o", codes)
	if want, _ := os.ReadFile(filepath.Join(td, "breaks-codes.stderr")); code != 0 || stderr != string(want) {
		t.Errorf("learn on breaks.txt: exit %d, stderr %q; want 0, %q", code, stderr, want)
	}
	got, _ = os.ReadFile(codes)
	same(string(got), "breaks-codes.txt")

	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"bpe", "apply"}, 2, "missing --codes"},
		{[]string{"bpe", "learn", "--symbols", "-1"}, 2, "--symbols must be >= 0"},
		{[]string{"bpe", "frob"}, 2, `unknown subcommand "frob" (have: apply, learn, undo)`},
		{[]string{"bpe", "apply", "--codes", filepath.Join(td, "corpus.txt")}, 1, "corpus.txt:1: a merge must be two symbols"},
	} {
		_, _, code, err := runEval(dir, c.args...)
		if code != c.code || err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%v: exit %d, error %v; want exit %d and %q", c.args, code, err, c.code, c.msg)
		}
	}
}

// TestTokenize: attnzoo tokenize writes the word tokens (by hand from
// tasks.TSVFormat.Tokenize's rules), and bpe learn on its output learns
// on those tokens: "„hallo“." is three words to it, not one.
func TestTokenize(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.de")
	os.WriteFile(in, []byte("Er sagte „Hallo“.\r\nSie sagte „Hallo“!\n"), 0o644)
	stdout, _, code, err := runEval(dir, "tokenize", "-i", in)
	if want := "er sagte „ hallo “ .\nsie sagte „ hallo “ !\n"; code != 0 || stdout != want {
		t.Fatalf("tokenize: exit %d (%v), %q; want %q", code, err, stdout, want)
	}
	tok := filepath.Join(dir, "in.tok")
	if _, _, code, err := runEval(dir, "tokenize", "--lowercase=false", "--tokenizer", "space", "-i", in, "-o", tok); code != 0 {
		t.Fatalf("tokenize -o: exit %d (%v)", code, err)
	}
	if got, _ := os.ReadFile(tok); string(got) != "Er sagte „Hallo“.\nSie sagte „Hallo“!\n" {
		t.Errorf("tokenize --tokenizer space: %q", got)
	}
	os.WriteFile(tok, []byte(stdout), 0o644)
	// On the word tokens "„" is a word of its own, of one character, so
	// no pair holds it (on the raw text, „ h occurs twice); all the pairs
	// of "sagte" and "hallo" (twice each) are merged, "h a" among them.
	codes, _, code, _ := runEval(dir, "bpe", "learn", "--symbols", "20", "-i", tok)
	if code != 0 || strings.Contains(codes, "„") || !strings.Contains(codes, "\nh a\n") {
		t.Errorf("codes on the tokens: exit %d, %q", code, codes)
	}
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"tokenize", "--tokenizer", "bpe"}, 2, `--tokenizer must be "word", "space" or "char", got "bpe"`},
		{[]string{"tokenize", "x.txt"}, 2, `unexpected argument "x.txt"`},
		{[]string{"tokenize", "-i", filepath.Join(dir, "none")}, 1, "none: no such file"},
	} {
		_, _, code, err := runEval(dir, c.args...)
		if code != c.code || err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%v: exit %d, error %v; want exit %d and %q", c.args, code, err, c.code, c.msg)
		}
	}
}
