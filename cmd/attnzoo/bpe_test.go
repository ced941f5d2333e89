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
	if _, stderr, code, err := runEval(dir, "bpe", "learn", "--symbols", "500", "-i", filepath.Join(td, "corpus.txt"), "-o", codes); code != 0 {
		t.Fatalf("learn: exit %d, %v, %s", code, err, stderr)
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
