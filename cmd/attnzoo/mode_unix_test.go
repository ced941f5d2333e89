//go:build unix

package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestBPEOutputMode: `bpe learn -o` writes its file 0666 less the umask
// (0664 under a group's umask 002), as every file attnzoo writes; before,
// its temporary file's 0600 was renamed into place.
func TestBPEOutputMode(t *testing.T) {
	old := syscall.Umask(0o002)
	defer syscall.Umask(old)
	dir := t.TempDir()
	codes := filepath.Join(dir, "codes")
	corpus := filepath.Join("..", "..", "tasks", "subword", "testdata", "corpus.txt")
	if _, stderr, code, err := runEval(dir, "bpe", "learn", "--symbols", "20", "-i", corpus, "-o", codes); code != 0 {
		t.Fatalf("learn: exit %d, %v, %s", code, err, stderr)
	}
	info, err := os.Stat(codes)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o664 {
		t.Errorf("%s has mode %v, want -rw-rw-r--", codes, info.Mode().Perm())
	}
}
