//go:build unix

package flock

import (
	"os"
	"path/filepath"
	"testing"
)

// TestTryLock: flock(2)'s rules, on two opens of one file in one process
// (flock locks belong to the open file, so they conflict as two processes'
// would): exclusive excludes both kinds, shared admits shared, and Close
// releases.
func TestTryLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	a, held, err := TryLock(path, true)
	if err != nil || held {
		t.Fatalf("first exclusive: held %v, %v", held, err)
	}
	if err := a.Write("holder a"); err != nil {
		t.Fatal(err)
	}
	for _, ex := range []bool{true, false} {
		if _, held, err := TryLock(path, ex); err != nil || !held {
			t.Errorf("exclusive %v against an exclusive lock: held %v, %v", ex, held, err)
		}
	}
	if data, _ := os.ReadFile(path); string(data) != "holder a" {
		t.Errorf("lock file holds %q", data)
	}
	a.Close()
	s1, held, err := TryLock(path, false)
	if err != nil || held {
		t.Fatalf("shared after release: held %v, %v", held, err)
	}
	s2, held, err := TryLock(path, false)
	if err != nil || held {
		t.Fatalf("second shared: held %v, %v", held, err)
	}
	if _, held, _ := TryLock(path, true); !held {
		t.Error("exclusive granted against two shared locks")
	}
	s1.Close()
	s2.Close()
	if l, held, err := TryLock(path, true); err != nil || held {
		t.Errorf("exclusive after both released: held %v, %v", held, err)
	} else {
		l.Close()
	}
}
