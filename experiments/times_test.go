package experiments

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFinalRecordsTimes: final.json records the training time and the
// greedy decoding of the test split (make bench-corpus reads both): each
// positive, and together no more than the whole run took.
func TestFinalRecordsTimes(t *testing.T) {
	path := writeExp(t, strings.Replace(oneRun, "STEPS", "5", 1))
	out := t.TempDir()
	t0 := time.Now()
	runExp(t, path, out, Options{Workers: 1})
	wall := time.Since(t0).Seconds()
	data, err := os.ReadFile(filepath.Join(out, "prov", "runs", "seed=1", "final.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f map[string]any
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	train, _ := f["train_seconds"].(float64)
	dec, _ := f["test_decode_seconds"].(float64)
	if train <= 0 || dec <= 0 || train+dec > wall {
		t.Errorf("train_seconds %v, test_decode_seconds %v: want both > 0 and their sum ≤ the run's %.3f s", f["train_seconds"], f["test_decode_seconds"], wall)
	}
}
