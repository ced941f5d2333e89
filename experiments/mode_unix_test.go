//go:build unix

package experiments

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestResultsReadableByOthers: under the usual umask 022 every file of a
// results folder (summary, report, figures, run files, checkpoint) has
// mode 0644, so others on a shared file system can read them.
func TestResultsReadableByOthers(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	out := t.TempDir()
	runExp(t, filepath.Join("testdata", "json-checkpoint", "old.toml"), out, Options{Workers: 1})
	if _, err := DrawFigures(filepath.Join(out, "old"), Plots{}); err != nil {
		t.Fatal(err)
	}
	n := 0
	filepath.Walk(out, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		n++
		if info.Mode().Perm() != 0o644 {
			t.Errorf("%s has mode %v, want -rw-r--r--", p, info.Mode().Perm())
		}
		return nil
	})
	if n < 10 {
		t.Errorf("%d files in the results folder", n)
	}
}
