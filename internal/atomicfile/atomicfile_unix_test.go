//go:build unix

package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestWriteMode: a written file has mode 0666 less the umask, as os.Create
// gives, not os.CreateTemp's 0600: 0644 under umask 022, 0640 under 027.
func TestWriteMode(t *testing.T) {
	for _, c := range []struct {
		umask int
		want  os.FileMode
	}{{0o022, 0o644}, {0o027, 0o640}, {0o077, 0o600}} {
		old := syscall.Umask(c.umask)
		path := filepath.Join(t.TempDir(), "final.json")
		err := Write(path, []byte("{}\n"))
		syscall.Umask(old)
		if err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != c.want {
			t.Errorf("umask %03o: mode %v, want %v", c.umask, fi.Mode().Perm(), c.want)
		}
	}
}

// TestWriteFuncFails: when the writer fails, the old file stays whole and
// no temporary file is left.
func TestWriteFuncFails(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "checkpoint.json")
	if err := Write(path, []byte("old")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := WriteFunc(path, func(w io.Writer) error {
		w.Write([]byte("half"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err %v, want boom", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("file now %q, want the old contents", b)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, TempPattern)); len(m) != 0 {
		t.Errorf("temporary files left: %v", m)
	}
}
