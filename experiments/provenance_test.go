package experiments

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/attnzoo/attnzoo/internal/gx"
)

// oneRun trains one reverse run in seconds; STEPS is replaced.
const oneRun = `name = "prov"
seeds = [1]
[task]
name = "reverse"
min_len = 3
max_len = 5
train = 100
dev = 10
test = 10
[model]
embed = 8
hidden = 16
attention = 8
[train]
steps = STEPS
batch = 4
eval_every = 5
[decode]
examples = 2
`

// TestResumeRefusesChangedSteps is issue 23's case: a run finished with
// steps = 5; the file then says 50 and --resume refuses, naming
// train.steps with both values, and leaves the folder as it was (final.json
// still 5, experiment.toml still the file it ran). A run that has only a
// checkpoint is refused the same way.
func TestResumeRefusesChangedSteps(t *testing.T) {
	path := writeExp(t, strings.Replace(oneRun, "STEPS", "5", 1))
	out := t.TempDir()
	runExp(t, path, out, Options{Workers: 1})
	dir := filepath.Join(out, "prov")
	run := filepath.Join(dir, "runs", "seed=1")
	saved, err := os.ReadFile(filepath.Join(dir, "experiment.toml"))
	if err != nil {
		t.Fatal(err)
	}

	path50 := writeExp(t, strings.Replace(oneRun, "STEPS", "50", 1))
	e, err := Load(path50)
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Run(context.Background(), Options{Out: out, Workers: 1, Resume: true})
	if err == nil || !strings.Contains(err.Error(), "train.steps: 5 → 50") || !strings.Contains(err.Error(), "finished") {
		t.Fatalf("resume after steps 5 → 50: %v, want a refusal naming train.steps: 5 → 50", err)
	}
	if f, err := ReadFinal(run); err != nil || f.Steps != 5 {
		t.Errorf("final.json after the refusal: %+v, %v", f, err)
	}
	if now, _ := os.ReadFile(filepath.Join(dir, "experiment.toml")); string(now) != string(saved) {
		t.Errorf("the refused resume rewrote experiment.toml")
	}

	// a cut-off run: only the checkpoint
	if err := os.Remove(filepath.Join(run, "final.json")); err != nil {
		t.Fatal(err)
	}
	_, err = e.Run(context.Background(), Options{Out: out, Workers: 1, Resume: true})
	if err == nil || !strings.Contains(err.Error(), "train.steps: 5 → 50") || !strings.Contains(err.Error(), "was trained") {
		t.Fatalf("resume of a checkpoint after steps 5 → 50: %v", err)
	}

	// the file it was started with resumes (and finishes the run again)
	runExp(t, path, out, Options{Workers: 1, Resume: true})
	if f, err := ReadFinal(run); err != nil || f.Steps != 5 {
		t.Errorf("resumed with the original file: %+v, %v", f, err)
	}
}

// TestConfigDiff names each differing key by its experiment-file name,
// sorted: a [train], a [task] and a [model] key, a scorer's own setting
// (a [model] key too) and a key set on one side only.
func TestConfigDiff(t *testing.T) {
	a := runConfigTOML{Run: "r", Seed: 1, Task: map[string]any{"name": "reverse", "train": int64(100)},
		Train: Train{Steps: 5, LR: 0.001}, ScorerSettings: map[string]float64{"sharpness": 5}}
	a.Model.Scorer = "dot"
	b := a
	b.Task = map[string]any{"name": "reverse", "train": int64(200), "dev": int64(10)}
	b.Train.Steps = 50
	b.Model.Scorer = "general"
	b.ScorerSettings = map[string]float64{"sharpness": 2.5}
	got := configDiff(a, b)
	want := []string{
		`model.scorer: "dot" → "general"`,
		"model.sharpness: 5 → 2.5",
		"task.dev: (unset) → 10",
		"task.train: 100 → 200",
		"train.steps: 5 → 50",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("configDiff:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if d := configDiff(a, a); len(d) != 0 {
		t.Errorf("a configuration differs from itself: %v", d)
	}
}

// TestFinalProvenance: final.json records the commit (or "unknown"), the
// build, the Go version and the hash of config.toml; summary.md lists the
// build.
func TestFinalProvenance(t *testing.T) {
	path := writeExp(t, strings.Replace(oneRun, "STEPS", "5", 1))
	out := t.TempDir()
	runExp(t, path, out, Options{Workers: 1})
	run := filepath.Join(out, "prov", "runs", "seed=1")
	data, err := os.ReadFile(filepath.Join(run, "final.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Provenance map[string]string `json:"provenance"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	p := f.Provenance
	cfg, err := os.ReadFile(filepath.Join(run, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(cfg)
	if p["config_hash"] != hex.EncodeToString(sum[:])[:16] {
		t.Errorf("config_hash %q, want the SHA-256 of config.toml %x", p["config_hash"], sum[:8])
	}
	if p["commit"] == "" || p["dirty"] == "" || p["commit_from"] == "" {
		t.Errorf("commit %q dirty %q from %q: want values or \"unknown\"", p["commit"], p["dirty"], p["commit_from"])
	}
	if p["go"] != runtime.Version() || p["blas"] != gx.BLAS() || p["device"] != "cpu" || p["products"] == "" {
		t.Errorf("build: %v", p)
	}
	md, err := os.ReadFile(filepath.Join(out, "prov", "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "## Provenance") || !strings.Contains(string(md), p["commit"]) {
		t.Errorf("summary.md does not list the build:\n%s", md)
	}
}

// TestProvenanceFrom: the build's vcs stamp wins; then the commit make
// links in (a build with -buildvcs=false); without either git is asked;
// with none (CI builds with -buildvcs=false and may have no git) every
// commit field is "unknown".
func TestProvenanceFrom(t *testing.T) {
	stamped := &debug.BuildInfo{GoVersion: "go1.99", Settings: []debug.BuildSetting{
		{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "0123456789abcdef"}, {Key: "vcs.modified", Value: "true"}}}
	noGit := func(...string) (string, error) { return "", errors.New("no git") }
	git := func(args ...string) (string, error) {
		if args[0] == "rev-parse" {
			return "fedcba9876543210", nil
		}
		return "", nil // status: clean
	}
	for _, c := range []struct {
		name              string
		info              *debug.BuildInfo
		linked, linkedDty string
		git               func(...string) (string, error)
		commit, dirty, by string
	}{
		{"stamped", stamped, "", "", noGit, "0123456789abcdef", "yes", "build"},
		{"stamped and linked: the stamp", stamped, "5d65442aaaaaaaaa", "no", git, "0123456789abcdef", "yes", "build"},
		{"linked, not git", &debug.BuildInfo{GoVersion: "go1.99"}, "5d65442aaaaaaaaa", "no", git, "5d65442aaaaaaaaa", "no", "build"},
		{"linked, tree unknown", nil, "5d65442aaaaaaaaa", "", nil, "5d65442aaaaaaaaa", "unknown", "build"},
		{"git", &debug.BuildInfo{GoVersion: "go1.99"}, "", "", git, "fedcba9876543210", "no", "git"},
		{"neither", &debug.BuildInfo{GoVersion: "go1.99"}, "", "", noGit, "unknown", "unknown", "unknown"},
		{"no build info, no git", nil, "", "", nil, "unknown", "unknown", "unknown"},
	} {
		p := provenanceFrom(c.info, c.linked, c.linkedDty, c.git)
		if p.Commit != c.commit || p.Dirty != c.dirty || p.CommitFrom != c.by {
			t.Errorf("%s: commit %q dirty %q from %q, want %q %q %q", c.name, p.Commit, p.Dirty, p.CommitFrom, c.commit, c.dirty, c.by)
		}
	}
}
