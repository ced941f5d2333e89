// Package tbtest reads event files for tests with a reader independent of
// package tbevents: read_events.py, on Debian's python3 with
// python3-protobuf (see its doc string for what it checks).
package tbtest

import (
	_ "embed"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

//go:embed read_events.py
var script []byte

// File is one event file as the reader found it.
type File struct {
	Path   string  `json:"path"`
	Events []Event `json:"events"`
	Tail   int     `json:"tail"` // bytes of a record cut short at the end
}

// Event is one decoded Event; one of FileVersion, SessionLog and Summary
// is set.
type Event struct {
	WallTime    float64 `json:"wall_time"`
	Step        int64   `json:"step"`
	FileVersion string  `json:"file_version"`
	SessionLog  string  `json:"session_log"` // "START", …
	Summary     []Value `json:"summary"`
}

// Value is one Summary.Value: a scalar or an image.
type Value struct {
	Tag         string   `json:"tag"`
	SimpleValue *float64 `json:"simple_value"`
	Image       *Image   `json:"image"`
}

// Image is a Summary.Image whose PNG the reader checked.
type Image struct {
	Height     int `json:"height"`
	Width      int `json:"width"`
	Colorspace int `json:"colorspace"`
	PNGBytes   int `json:"png_bytes"`
}

// RequireEnv names the environment variable that turns a missing reader
// into a failure instead of a skip (CI sets it: .ci/run installs
// python3-protobuf).
const RequireEnv = "ATTNZOO_REQUIRE_PROTOBUF"

// python finds a python3 that imports google.protobuf: the one on PATH,
// else Debian's /usr/bin/python3 (a PATH may lead to another Python).
func python() string {
	var cands []string
	if p, err := exec.LookPath("python3"); err == nil {
		cands = append(cands, p)
	}
	cands = append(cands, "/usr/bin/python3")
	for _, p := range cands {
		if exec.Command(p, "-c", "import google.protobuf").Run() == nil {
			return p
		}
	}
	return ""
}

// Read reads event files with the independent reader. Without a python3
// that has google.protobuf it skips t (fails it when RequireEnv is 1);
// any defect the reader finds fails t.
func Read(t testing.TB, paths ...string) []File {
	t.Helper()
	py := python()
	if py == "" {
		msg := "no python3 with google.protobuf (Debian: apt-get install python3-protobuf): the independent event-file reader cannot run"
		if os.Getenv(RequireEnv) == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	sp := filepath.Join(t.TempDir(), "read_events.py")
	if err := os.WriteFile(sp, script, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py, append([]string{sp}, paths...)...).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("read_events.py: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("read_events.py: %v", err)
	}
	var res struct {
		CRC   string `json:"crc"`
		Files []File `json:"files"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("read_events.py: %v\n%s", err, out)
	}
	t.Logf("read_events.py (%s, %s) read %d files", py, res.CRC, len(res.Files))
	return res.Files
}
