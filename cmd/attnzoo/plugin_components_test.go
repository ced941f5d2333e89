package main

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/gx"
	"github.com/attnzoo/attnzoo/optimizers"
	"github.com/attnzoo/attnzoo/scorers"
)

// A normaliser and an optimizer registered from this test file, as new ones
// would be from their own files: `attnzoo list`, `attnzoo score` and an
// experiment file use them with nothing else touched
// (TestPluginNormalizerOptimizer).
func init() {
	// test-uniform: the same weight for every unmasked key, a softmax of
	// s − s = 0 (1/n over n keys)
	scorers.RegisterNormalizer("test-uniform", func(g *gx.Graph, s, m *gx.Node) *gx.Node {
		return g.MaskedSoftmax(g.Sub(s, s), m)
	})
	optimizers.Register("test-sign", signDescent)
}

// testSign is sign descent, θ ← θ − lr·sign(g), recording each update it
// is given.
type testSign struct {
	mu      sync.Mutex
	updates []optimizers.Update
}

var signDescent = &testSign{}

var signLoops = optimizers.Loops{F32F32: sign[float32, float32], F32F64: sign[float32, float64],
	F64F32: sign[float64, float32], F64F64: sign[float64, float64]}

func (o *testSign) Step(u optimizers.Update, _ backend.Backend, ps []optimizers.Slot) error {
	o.mu.Lock()
	o.updates = append(o.updates, u)
	o.mu.Unlock()
	return signLoops.Step(u, ps)
}

func sign[P, G optimizers.Float](u optimizers.Update, p []P, g []G, _, _ []float64) {
	for j, x := range g[:len(p)] {
		switch {
		case x > 0:
			p[j] -= P(u.LR)
		case x < 0:
			p[j] += P(u.LR)
		}
	}
}

func TestPluginNormalizerOptimizer(t *testing.T) {
	l := listJSON(t)
	if !slices.Contains(l.Normalizers, "test-uniform") || !slices.Contains(l.Optimizers, "test-sign") {
		t.Errorf("list --json: normalizers %v, optimizers %v, want test-uniform and test-sign among them", l.Normalizers, l.Optimizers)
	}
	out, _, _ := runCLI(t, "list")
	hasAll(t, "list", out, "normalizers: softmax, sparsemax, test-uniform", "optimizers: adam, rmsprop, sgd, test-sign")
	// three keys, one masked: 1/2 each for the other two, whatever the scores
	out, errOut, code := runCLI(t, "score", "--scorer", "dot", "--normalizer", "test-uniform", "--query", "1,0", "--keys", "5,0;0,1;3,3", "--mask", "1,0,1", "--json")
	if code != 0 {
		t.Fatalf("score: exit %d: %s", code, errOut)
	}
	var r struct{ Weights []float64 }
	if err := json.Unmarshal([]byte(out), &r); err != nil || !slices.Equal(r.Weights, []float64{0.5, 0, 0.5}) {
		t.Errorf("score --normalizer test-uniform: weights %v (%v), want [0.5 0 0.5]", r.Weights, err)
	}

	// an experiment file naming both: 3 steps of sign descent at lr 0.01,
	// and attention uniform over each test example's source
	dir := t.TempDir()
	exp := filepath.Join(dir, "plug.toml")
	err := os.WriteFile(exp, []byte(`name = "plug"
[task]
name = "reverse"
min_len = 3
max_len = 5
vocab = 6
train = 32
dev = 8
test = 8
[model]
normalizer = "test-uniform"
embed = 8
hidden = 8
attention = 8
[train]
optimizer = "test-sign"
lr = 0.01
steps = 3
batch = 8
eval_every = 3
eval_size = 8
[decode]
examples = 4
[plots]
formats = []
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	signDescent.mu.Lock()
	signDescent.updates = nil
	signDescent.mu.Unlock()
	if _, errOut, code := runCLI(t, "run", exp, "--out", dir); code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	signDescent.mu.Lock()
	got := signDescent.updates
	signDescent.mu.Unlock()
	if len(got) != 3 {
		t.Fatalf("test-sign stepped %d times, want 3 ([train] steps): %+v", len(got), got)
	}
	for i, u := range got {
		if u.T != i+1 || u.LR != 0.01 || u.Scale <= 0 || u.Scale > 1 {
			t.Errorf("update %d: %+v, want T %d, LR 0.01 (no decay), a clip scale in (0, 1]", i, u, i+1)
		}
	}
	runs, _ := filepath.Glob(filepath.Join(dir, "plug", "runs", "*", "alignments.jsonl"))
	if len(runs) != 1 {
		t.Fatalf("alignments: %v, want one run's", runs)
	}
	f, err := os.Open(runs[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows := 0
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var ex struct{ Weights [][]float64 }
		if err := json.Unmarshal(sc.Bytes(), &ex); err != nil {
			t.Fatal(err)
		}
		for _, row := range ex.Weights {
			rows++
			for _, w := range row {
				if math.Abs(w-1/float64(len(row))) > 1e-6 {
					t.Fatalf("attention row %v: want 1/%d everywhere (test-uniform)", row, len(row))
				}
			}
		}
	}
	if rows == 0 {
		t.Error("alignments.jsonl holds no attention rows")
	}
}
