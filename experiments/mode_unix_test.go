//go:build unix

package experiments

import (
	"os"
	"path/filepath"
	"strings"
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

// TestSharedUmask: under umask 002 (a group sharing a sweep) every folder
// of a results folder is 0775 and every file 0664 (0777 and 0666 less the
// umask), TensorBoard's event files and the lock among them, so the group
// can resume the sweep. Before, folders were 0755 and event files 0644.
func TestSharedUmask(t *testing.T) {
	old := syscall.Umask(0o002)
	defer syscall.Umask(old)
	text, err := os.ReadFile(filepath.Join("testdata", "json-checkpoint", "old.toml"))
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	runExp(t, writeExp(t, string(text)+"[output]\ntensorboard = true\n"), out, Options{Workers: 1})
	if _, err := DrawFigures(filepath.Join(out, "old"), Plots{}); err != nil {
		t.Fatal(err)
	}
	dirs, files, events := 0, 0, 0
	filepath.Walk(filepath.Join(out, "old"), func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		want := os.FileMode(0o664)
		if info.IsDir() {
			want = 0o775
			dirs++
		} else {
			files++
			if strings.HasPrefix(info.Name(), "events.out.tfevents.") {
				events++
			}
		}
		if info.Mode().Perm() != want {
			t.Errorf("%s has mode %v, want %v", p, info.Mode().Perm(), want)
		}
		return nil
	})
	if dirs < 3 || files < 10 || events == 0 {
		t.Errorf("%d folders, %d files, %d event files in the results folder", dirs, files, events)
	}
}
