package main

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/attnzoo/attnzoo/scorers"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func runCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	err := run(context.Background(), args, &o, &e)
	code = exitCode(err, &e)
	return o.String(), e.String(), code
}

// runOK runs the command line args and stops the test unless it exits 0;
// it returns what the command printed to stdout.
func runOK(t *testing.T, args ...string) string {
	t.Helper()
	out, errs, code := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("attnzoo %s: exit %d: %s", strings.Join(args, " "), code, errs)
	}
	return out
}

// hasAll reports each of wants that text (what, e.g. "table") lacks.
func hasAll(t *testing.T, what, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, text)
		}
	}
}

// TestScoreClassicJSON: the classic example (derivation in
// testdata/scorers/dot_classic.toml): dot scores 927, 397, 148, 929 and
// softmax weights e^−2/(1+e^−2) ≈ 0.119, 0, 0, 1/(1+e^−2) ≈ 0.881.
func TestScoreClassicJSON(t *testing.T) {
	out := runOK(t, "score", "--scorer", "dot", "--query", "5,1,20",
		"--keys", "3,12,45;59,2,5;1,43,5;4,3,45.3", "--json")
	var r struct {
		Scorer                   string
		Scores, Weights, Context []float64
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v in %q", err, out)
	}
	if r.Scorer != "dot" {
		t.Errorf("scorer %q", r.Scorer)
	}
	want := []float64{927, 397, 148, 929}
	for i := range want {
		if r.Scores[i] != want[i] {
			t.Errorf("score %d = %v, want %v", i, r.Scores[i], want[i])
		}
	}
	e2 := math.Exp(-2)
	ww := []float64{e2 / (1 + e2), 0, 0, 1 / (1 + e2)}
	for i := range ww {
		if math.Abs(r.Weights[i]-ww[i]) > 1e-12 {
			t.Errorf("weight %d = %v, want %v", i, r.Weights[i], ww[i])
		}
	}
	if len(r.Context) != 3 {
		t.Errorf("context %v", r.Context)
	}
	hasAll(t, "JSON", out, `"scorer"`, `"scores"`, `"weights"`, `"context"`)
}

func TestScoreErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(bad, []byte("# general needs W 2×2\nW = [[1, 0],\n  [0]]\n"), 0o644)
	unknown := filepath.Join(dir, "unknown.toml")
	os.WriteFile(unknown, []byte("W = [[1, 0], [0, 1]]\nU = 3\n"), 0o644)
	cases := []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"unknown scorer", []string{"score", "--scorer", "dto", "--query", "1", "--keys", "1"}, 2,
			[]string{`unknown scorer "dto"`, strings.Join(scorers.Names(), ", ")}},
		{"malformed keys", []string{"score", "--scorer", "dot", "--query", "1,2", "--keys", "1,2;3,x;5,6"}, 2,
			[]string{"--keys", "row 2", `"3,x"`}},
		{"ragged keys", []string{"score", "--scorer", "dot", "--query", "1,2", "--keys", "1,2;3"}, 2,
			[]string{"row 2", "1 entries", "row 1 has 2"}},
		{"size mismatch", []string{"score", "--scorer", "dot", "--query", "1,2,3", "--keys", "1,2;3,4"}, 2,
			[]string{"Dq=3", "Dk=2"}},
		{"bad mask", []string{"score", "--scorer", "dot", "--query", "1", "--keys", "1;2", "--mask", "1,2"}, 2,
			[]string{"--mask", "entry 2"}},
		{"mask length", []string{"score", "--scorer", "dot", "--query", "1", "--keys", "1;2", "--mask", "1"}, 2,
			[]string{"--mask has 1 entries", "2 rows"}},
		{"bad normalizer", []string{"score", "--scorer", "dot", "--query", "1", "--keys", "1", "--normalizer", "max"}, 2,
			[]string{`"max"`, "softmax, sparsemax"}},
		{"missing params", []string{"score", "--scorer", "general", "--query", "1,2", "--keys", "1,2"}, 2,
			[]string{"W 2×2"}},
		{"bad params file", []string{"score", "--scorer", "general", "--query", "1,2", "--keys", "1,2", "--params", bad}, 1,
			[]string{"bad.toml", `key "W"`, "row 2 has 1 entries", "line 2"}},
		{"unknown params key", []string{"score", "--scorer", "general", "--query", "1,2", "--keys", "1,2", "--params", unknown}, 1,
			[]string{"unknown.toml", `key "U"`, "have: W"}},
		{"missing params file", []string{"score", "--scorer", "general", "--query", "1,2", "--keys", "1,2", "--params", filepath.Join(dir, "nope.toml")}, 1,
			[]string{"nope.toml"}},
		{"no scorer", []string{"score", "--query", "1", "--keys", "1"}, 2, []string{"--scorer is required"}},
		{"unknown flag", []string{"score", "--bogus"}, 2, []string{"bogus"}},
		{"unknown command", []string{"scroe"}, 2, []string{`unknown command "scroe"`, "score"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, errs, code := runCLI(t, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d (%s)", code, tc.code, errs)
			}
			for _, w := range tc.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr %q lacks %q", errs, w)
				}
			}
		})
	}
}

// TestScoreParamsAndOptions runs the concat case of testdata/scorers through
// the CLI with a params file, and sparsemax with a mask.
func TestScoreParamsAndOptions(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "concat.toml")
	os.WriteFile(p, []byte("W_q = [[1], [1]]\nW_k = [[-1], [1]]\nb = [0, 0]\nv = [1, 2]\n"), 0o644)
	out := runOK(t, "score", "--scorer", "bahdanau", "--query", "1", "--keys", "1;-1", "--params", p, "--json")
	var r struct {
		Scorer string
		Scores []float64
	}
	json.Unmarshal([]byte(out), &r)
	// s1 = 2 tanh 2, s2 = tanh 2 (testdata/scorers/concat.toml)
	if r.Scorer != "concat" || math.Abs(r.Scores[0]-2*math.Tanh(2)) > 1e-12 || math.Abs(r.Scores[1]-math.Tanh(2)) > 1e-12 {
		t.Errorf("got %s %v, want concat [2 tanh 2, tanh 2]", r.Scorer, r.Scores)
	}
	// sparsemax of [1, 0.5, −1, 3] with the last masked: [0.75, 0.25, 0, 0]
	out = runOK(t, "score", "--scorer", "dot", "--query", "1", "--keys", "1;0.5;-1;3",
		"--normalizer", "sparsemax", "--mask", "1,1,1,0", "--json")
	var w struct{ Weights []float64 }
	json.Unmarshal([]byte(out), &w)
	want := []float64{0.75, 0.25, 0, 0}
	for i := range want {
		if math.Abs(w.Weights[i]-want[i]) > 1e-12 {
			t.Errorf("weights %v, want %v", w.Weights, want)
			break
		}
	}
	// every key masked: sparsemax and softmax both give all-zero weights
	for _, norm := range []string{"sparsemax", "softmax"} {
		out, _, _ = runCLI(t, "score", "--scorer", "dot", "--query", "1", "--keys", "1;2", "--normalizer", norm, "--mask", "0,0", "--json")
		var z struct{ Weights []float64 }
		json.Unmarshal([]byte(out), &z)
		if len(z.Weights) != 2 || z.Weights[0] != 0 || z.Weights[1] != 0 {
			t.Errorf("%s with every key masked: weights %v, want [0 0]", norm, z.Weights)
		}
	}
	// the readable table names the scorer and every key
	out, _, code := runCLI(t, "score", "--scorer", "scaled-dot", "--query", "1,0,1,0", "--keys", "2,0,0,0;0,0,4,0;1,1,1,1")
	if code != 0 || !strings.Contains(out, "scaled-dot") || !strings.Contains(out, "0.576117") {
		t.Errorf("table output %q", out)
	}
}

// listJSON runs `attnzoo list --json` and decodes it.
func listJSON(t *testing.T) listing {
	t.Helper()
	out, _, code := runCLI(t, "list", "--json")
	if code != 0 {
		t.Fatal(code)
	}
	var l listing
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatal(err)
	}
	return l
}

func TestList(t *testing.T) {
	l := listJSON(t)
	names := []string{}
	for _, s := range l.Scorers {
		names = append(names, s.Name)
		// location's scores follow positions (its W has a row per position)
		if s.PositionBased != (s.Name == "location") {
			t.Errorf("%s: position_based %v", s.Name, s.PositionBased)
		}
	}
	if got, want := strings.Join(names, ","), strings.Join(scorers.Names(), ","); got != want || !strings.Contains(got, "test-cli") {
		t.Errorf("scorers %s, want %s (with test-cli, plugin_test.go)", got, want)
	}
	out, _, _ := runCLI(t, "list")
	hasAll(t, "list", out, "bahdanau", "luong", "sparsemax", "scaled-dot",
		"layers = 1: stacked recurrent layers", "(encoders birnn, rnn)", "tie_embeddings = false: the output projection's weight is the target embedding")
	if len(l.ModelKeys) != 2 || l.ModelKeys[0].Name != "layers" || l.ModelKeys[1].Name != "tie_embeddings" {
		t.Errorf("list --json model_keys: %+v", l.ModelKeys)
	}
	// the loss's keys and each task's keys (the vocabulary limits per side among tsv's)
	hasAll(t, "list", out, "loss ([train]): label_smoothing = 0", "task keys ([task]):",
		"src_max_vocab, src_min_count", "tgt_max_vocab, tgt_min_count")
	if !slices.Contains(l.TaskKeys["tsv"], "src_min_count") || !slices.Contains(l.TaskKeys["date"], "max_year") {
		t.Errorf("list --json task_keys: tsv %v, date %v", l.TaskKeys["tsv"], l.TaskKeys["date"])
	}
	// the learning rate's schedules, with the [train] keys each reads
	var sched []string
	for _, s := range l.Schedules {
		sched = append(sched, s.Name+":"+strings.Join(s.Keys, ","))
	}
	if got, want := strings.Join(sched, " "), "constant: step:lr_decay,lr_decay_every,min_lr inverse_sqrt:warmup,min_lr plateau:lr_decay,lr_patience,min_lr"; got != want {
		t.Errorf("list --json: schedules %s, want %s", got, want)
	}
	hasAll(t, "list", out, "inverse_sqrt lr·min(n/warmup, √(warmup/n)) [keys: warmup, min_lr]", "plateau ", "batching ([train]): batch (sentences), batch_tokens (B·max(S, T) ≤ N")
	if code := exitCode(run(context.Background(), nil, io.Discard, io.Discard), io.Discard); code != 2 {
		t.Errorf("no command: exit %d, want 2", code)
	}
}
