package tasks

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestTokenizeLines: one line of tokens for each line in, by hand from
// Tokenize's rules (TestTSVTokenize has one case of each), and the same
// tokens the tsv task reads from a pair of files.
func TestTokenizeLines(t *testing.T) {
	in := "\ufeffTom sagte „Hallo“.\r\n" + // BOM and CRLF dropped
		"\n" + // a blank line gives an empty line
		"I’m here, aren't you?\n" +
		"3.5 km" // no final newline
	for _, c := range []struct {
		f    TSVFormat
		want string
	}{
		{TSVFormat{Lowercase: true}, "tom sagte „ hallo “ .\n\ni'm here , aren't you ?\n3.5 km\n"},
		{TSVFormat{}, "Tom sagte „ Hallo “ .\n\nI'm here , aren't you ?\n3.5 km\n"},
		{TSVFormat{Space: true, Lowercase: true}, "tom sagte „hallo“.\n\ni'm here, aren't you?\n3.5 km\n"},
		{TSVFormat{Char: true, Lowercase: true}, "t o m ▁ s a g t e ▁ „ h a l l o “ .\n\ni ' m ▁ h e r e , ▁ a r e n ' t ▁ y o u ?\n3 . 5 ▁ k m\n"},
	} {
		var out bytes.Buffer
		if err := TokenizeLines(context.Background(), strings.NewReader(in), "in", &out, c.f); err != nil {
			t.Fatal(err)
		}
		if out.String() != c.want {
			t.Errorf("%+v: got %q, want %q", c.f, out.String(), c.want)
		}
	}

	err := TokenizeLines(context.Background(), strings.NewReader("ok\nbad \xff\n"), "x.txt", &bytes.Buffer{}, TSVFormat{})
	if err == nil || err.Error() != "tasks: tokenize: x.txt:2: invalid UTF-8" {
		t.Errorf("invalid UTF-8: got %v", err)
	}

	// The task on fixed splits keeps every line, in order: its training
	// sources are TokenizeLines' lines of train.de.
	dir := t.TempDir()
	de := "Zwei Männer stehen am Herd.\r\nEin Hund läuft, schnell!\nL’homme „sagt“ 3,5.\n"
	for _, s := range []string{"train", "dev", "test"} {
		os.WriteFile(filepath.Join(dir, s+".de"), []byte(de), 0o644)
		os.WriteFile(filepath.Join(dir, s+".en"), []byte("a\nb\nc\n"), 0o644)
	}
	d := load(t, "tsv", Options{"train": filepath.Join(dir, "train"), "dev": filepath.Join(dir, "dev"), "test": filepath.Join(dir, "test"),
		"src_lang": "de", "tgt_lang": "en"}, 1)
	var out bytes.Buffer
	if err := TokenizeLines(context.Background(), strings.NewReader(de), "train.de", &out, TSVFormat{Lowercase: true}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	train := d.Examples("train")
	if len(lines) != len(train) {
		t.Fatalf("%d lines, %d training pairs", len(lines), len(train))
	}
	for i, l := range lines {
		if got := strings.Split(l, " "); !reflect.DeepEqual(got, train[i].Src) {
			t.Errorf("line %d: TokenizeLines %q, the task %q", i+1, got, train[i].Src)
		}
	}
}
