package experiments

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCollectChecksSettings: a finished run whose config.toml is not the
// one its final.json's config_hash was taken of (another process's
// settings written over it), or whose settings differ from what the
// folder's experiment.toml gives it, fails Collect naming the run (and the
// key); the untouched folder collects.
func TestCollectChecksSettings(t *testing.T) {
	text := strings.Replace(tiny, "seeds = [1, 2]", "seeds = [1]", 1)
	out := t.TempDir()
	runExp(t, writeExp(t, text), out, Options{Workers: 2})
	dir := filepath.Join(out, "tiny")
	run := filepath.Join(dir, "runs", "scorer=concat_seed=1")
	cfg, _ := os.ReadFile(filepath.Join(run, "config.toml"))
	exp, _ := os.ReadFile(filepath.Join(dir, "experiment.toml"))
	if !strings.Contains(string(cfg), "lr = 0.003\n") {
		t.Fatalf("config.toml has no lr = 0.003:\n%s", cfg)
	}
	if s, err := Collect(dir); err != nil || len(s.Runs) != 2 {
		t.Fatalf("untouched: %v", err)
	}

	os.WriteFile(filepath.Join(run, "config.toml"), []byte(strings.Replace(string(cfg), "lr = 0.003\n", "lr = 0.01\n", 1)), 0o644)
	_, err := Collect(dir)
	if err == nil || !strings.Contains(err.Error(), "run scorer=concat_seed=1") || !strings.Contains(err.Error(), "config_hash") {
		t.Errorf("config.toml of other settings: %v", err)
	}
	os.WriteFile(filepath.Join(run, "config.toml"), cfg, 0o644)

	os.WriteFile(filepath.Join(dir, "experiment.toml"), []byte(strings.Replace(string(exp), "lr = 0.003\n", "lr = 0.01\n", 1)), 0o644)
	_, err = Collect(dir)
	for _, want := range []string{"run scorer=concat_seed=1", "run scorer=dot_seed=1", "train.lr: 0.003 → 0.01"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("experiment.toml of other settings: %v\nwant %q", err, want)
		}
	}
}
