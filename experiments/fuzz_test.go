package experiments

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse feeds arbitrary bytes to the experiment loader: an error, or a
// valid experiment whose runs expand and whose memory estimates are finite
// numbers — never a panic.
func FuzzParse(f *testing.F) {
	for _, dir := range []string{".", filepath.Join("..", "testdata", "typos")} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.toml"))
		for _, p := range files {
			if data, err := os.ReadFile(p); err == nil {
				f.Add(data)
			}
		}
	}
	f.Add([]byte("name = \"x\"\n[task]\nname = \"copy\"\n[sweep]\n\"task.max_len\" = [3, 5]\nhidden = [8, 16]\n"))
	f.Add([]byte("name = \"x\"\nseeds = [1, 1]\n[task]\nname = \"reverse\"\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := Parse(b, "fuzz.toml")
		if err != nil {
			return
		}
		runs, err := e.Runs()
		if err != nil {
			t.Fatalf("Parse accepted what Runs refuses: %v", err)
		}
		for _, r := range runs {
			est := e.runEstimate(r)
			if math.IsNaN(est.Total) || math.IsInf(est.Total, 0) || est.Total < 0 {
				t.Fatalf("run %s: estimate %+v", r.ID, est)
			}
		}
	})
}
