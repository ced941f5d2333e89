package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixedSplits is a tsv experiment on fixed splits: train.tsv, the dev file
// valid.tsv (its name holds no key's name: the key comes from the task,
// not from the text) and the test file TEST. Its [task] keys sit on
// lines 4 (train), 5 (dev) and 6 (test).
const fixedSplits = `name = "fixed"
[task]
name = "tsv"
train = "train.tsv"
dev = "valid.tsv"
test = "TEST"
[model]
embed = 4
hidden = 4
attention = 4
[train]
steps = 2
batch = 2
`

// writeSplits writes the fixed-split experiment with test file test and
// the split files: train.tsv, valid.tsv (dev) and the files given.
func writeSplits(t *testing.T, test string, files map[string]string) (dir, exp string) {
	t.Helper()
	all := map[string]string{"train.tsv": "a b c\tc b a\nd e\te d\nf g h\th g f\n", "valid.tsv": "a b\tb a\n"}
	for k, v := range files {
		all[k] = v
	}
	all["fixed.toml"] = strings.Replace(fixedSplits, "TEST", test, 1)
	dir = writeFixtures(t, all)
	return dir, filepath.Join(dir, "fixed.toml")
}

// TestExitStatuses: each class of error exits with its status of
// docs/cli.md's table: usage 2, configuration 3, data 4, runtime 1.
func TestExitStatuses(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	dir, exp := writeSplits(t, "test.tsv", map[string]string{"test.tsv": "a b\tb a\n",
		"typo.toml": "name = \"typo\"\n[task]\nname = \"reverse\"\n[model]\nhiden = 4\n",
		"held.tsv":  "a b\tb a\nno tab here\n",
		"held.toml": strings.Replace(strings.Replace(fixedSplits, "TEST", "test.tsv", 1), "valid.tsv", "held.tsv", 1)})
	out := filepath.Join(dir, "out")
	cases := []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"usage: a bad flag", []string{"run", exp, "--workers", "0"}, 2, []string{"--workers"}},
		{"usage: no command", []string{}, 2, []string{"no command"}},
		{"configuration: an unknown key", []string{"run", filepath.Join(dir, "typo.toml"), "--out", out}, 3, []string{"typo.toml:5", "hiden"}},
		{"configuration: a missing experiment file", []string{"run", filepath.Join(dir, "nope.toml"), "--out", out}, 3, []string{"nope.toml"}},
		{"runtime: a missing run folder", []string{"decode", filepath.Join(dir, "nope"), "--input", "a"}, 1, []string{"nope"}},
	}
	for _, tc := range cases {
		_, errs, code := runCLI(t, tc.args...)
		if code != tc.code {
			t.Errorf("%s: exit %d, want %d: %s", tc.name, code, tc.code, errs)
		}
		for _, w := range tc.want {
			if !strings.Contains(errs, w) {
				t.Errorf("%s: stderr lacks %q: %s", tc.name, w, errs)
			}
		}
	}

	// data: a bad line in the dev file is refused at the experiment
	// file's line 5, [task] dev, naming the data file and its line 2
	_, errs, code := runCLI(t, "run", filepath.Join(dir, "held.toml"), "--out", out)
	if code != 4 {
		t.Errorf("a bad dev line: exit %d, want 4 (data): %s", code, errs)
	}
	for _, w := range []string{"held.toml:5: [task] dev", "held.tsv:2", "no tab"} {
		if !strings.Contains(errs, w) {
			t.Errorf("a bad dev line: stderr lacks %q: %s", w, errs)
		}
	}

	// runtime: the sweep trains, but report.html cannot be written (a
	// folder stands in its place, as a full or read-only disk would refuse
	// it): exit 1 naming the file
	os.MkdirAll(filepath.Join(out, "fixed", "report.html", "x"), 0o755)
	_, errs, code = runCLI(t, "run", exp, "--out", out, "--workers", "1")
	if code != 1 || !strings.Contains(errs, "report.html") {
		t.Errorf("report.html not writable: exit %d, want 1 naming report.html: %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(out, "fixed", "runs", "seed=1", "final.json")); err != nil {
		t.Errorf("the run did not finish before the report failed: %v", err)
	}
	// plot fails the same way, and a figure that cannot be written too
	if _, errs, code = runCLI(t, "plot", filepath.Join(out, "fixed")); code != 1 || !strings.Contains(errs, "report.html") {
		t.Errorf("plot, report.html not writable: exit %d: %s", code, errs)
	}
	os.RemoveAll(filepath.Join(out, "fixed", "report.html"))
	os.RemoveAll(filepath.Join(out, "fixed", "figures"))
	os.WriteFile(filepath.Join(out, "fixed", "figures"), []byte("a file where the folder goes"), 0o644)
	if _, errs, code = runCLI(t, "run", exp, "--out", out, "--resume"); code != 1 || !strings.Contains(errs, "figures") {
		t.Errorf("figures not writable: exit %d, want 1 naming figures: %s", code, errs)
	}
}

// TestEmptySplit: an empty test file is refused before anything trains,
// with the data status 4, naming the file and the experiment file's
// line 6 ([task] test); no run folder is made.
func TestEmptySplit(t *testing.T) {
	dir, exp := writeSplits(t, "empty.tsv", map[string]string{"empty.tsv": ""})
	out := filepath.Join(dir, "out")
	_, errs, code := runCLI(t, "run", exp, "--out", out)
	if code != 4 {
		t.Errorf("exit %d, want 4: %s", code, errs)
	}
	for _, w := range []string{"fixed.toml:6: [task] test", "empty.tsv", "no pairs"} {
		if !strings.Contains(errs, w) {
			t.Errorf("stderr lacks %q: %s", w, errs)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a refused experiment made %s", out)
	}
}

// TestLongLine: a test file's line 2 of 500000 tokens (1 MB) is refused
// before anything trains, naming the file and line and max_len (the
// key that drops long training pairs), placed at [task] test.
func TestLongLine(t *testing.T) {
	long := "a b\tb a\n" + strings.Repeat("x ", 500000) + "\ty\n"
	dir, exp := writeSplits(t, "long.tsv", map[string]string{"long.tsv": long})
	_, errs, code := runCLI(t, "run", exp, "--out", filepath.Join(dir, "out"), "--max-memory", "16GB")
	if code != 3 {
		t.Errorf("exit %d, want 3 (configuration: the sweep cannot fit): %s", code, errs)
	}
	for _, w := range []string{"fixed.toml:6: [task] test", "long.tsv:2", "500000 source", "max_len"} {
		if !strings.Contains(errs, w) {
			t.Errorf("stderr lacks %q: %s", w, errs)
		}
	}
}

// TestSweepAlias: a sweep naming one scorer twice, through an alias or
// not, is refused naming both values.
func TestSweepAlias(t *testing.T) {
	for _, tc := range []struct{ list, want string }{
		{`["concat", "additive"]`, `"concat" and "additive" name one component (concat)`},
		{`["dot", "bahdanau", "general", "luong"]`, `"general" and "luong" name one component (general)`},
		{`["dot", "dot"]`, `"dot" is listed twice`},
	} {
		// a few steps of a small model, so that a sweep that is not refused
		// ends at once; scorer is on line 16
		dir := writeFixtures(t, map[string]string{"a.toml": "name = \"a\"\n[task]\nname = \"reverse\"\nmax_len = 4\ntrain = 20\ndev = 4\ntest = 4\n" +
			"[model]\nembed = 4\nhidden = 4\nattention = 4\n[train]\nsteps = 2\nbatch = 2\n[sweep]\nscorer = " + tc.list + "\n"})
		_, errs, code := runCLI(t, "run", filepath.Join(dir, "a.toml"), "--out", filepath.Join(dir, "out"))
		if code != 3 || !strings.Contains(errs, "a.toml:16: [sweep] scorer") || !strings.Contains(errs, tc.want) {
			t.Errorf("%s: exit %d, %q; want 3 and %q", tc.list, code, errs, tc.want)
		}
	}
}

// TestBeamAndLength: --beam below 1 is a usage error for decode and
// translate; an input longer than every source the run was trained and
// scored on (the tiny run's are 3 to 6 tokens) decodes, with a warning.
func TestBeamAndLength(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	if _, errs, code := runCLI(t, "run", filepath.Join("..", "..", "experiments", "tiny.toml"), "--out", out, "--workers", "2"); code != 0 {
		t.Fatalf("tiny: exit %d: %s", code, errs)
	}
	run := filepath.Join(out, "tiny", "runs", "scorer=dot_seed=1")
	os.WriteFile(filepath.Join(dir, "in.txt"), []byte("1 2 3\n"+strings.Repeat("1 2 3 4 ", 5)+"\n"), 0o644)
	for _, args := range [][]string{
		{"decode", run, "--input", "1 2 3", "--beam", "-3"},
		{"decode", run, "--input", "1 2 3", "--beam", "0"},
		{"translate", run, "--input", filepath.Join(dir, "in.txt"), "--beam", "0"},
	} {
		if _, errs, code := runCLI(t, args...); code != 2 || !strings.Contains(errs, "--beam must be >= 1") {
			t.Errorf("%v: exit %d, %q; want 2 and --beam", args, code, errs)
		}
	}
	_, errs, code := runCLI(t, "decode", run, "--input", strings.Repeat("1 2 3 4 ", 5))
	if code != 0 || !strings.Contains(errs, "warning: the input's 20 tokens are longer than any source the run was trained or scored on (6 tokens at most)") {
		t.Errorf("20 tokens: exit %d, %q; want 0 and a warning", code, errs)
	}
	if _, errs, _ := runCLI(t, "decode", run, "--input", "1 2 3 4 5 6"); strings.Contains(errs, "warning") {
		t.Errorf("6 tokens warned: %s", errs)
	}
	_, errs, code = runCLI(t, "translate", run, "--input", filepath.Join(dir, "in.txt"))
	if code != 0 || !strings.Contains(errs, "warning: 1 lines are longer than any source the run was trained or scored on (6 tokens at most)") {
		t.Errorf("translate, one line of 20 tokens: exit %d, %q; want 0 and a warning", code, errs)
	}
}
