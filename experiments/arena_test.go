package experiments

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestEstimateIsThePlan: a reversal run whose every example has 6 tokens,
// so every training batch has the largest shape (batch 16, sources of 6,
// targets of 7 with </s>) and greedy decoding the longest (2·6 + 10 tokens).
// The estimate is read off the plans of the run's own graphs, so the
// values the run's arena held at its end are exactly the larger plan's,
// and the working buffers exactly the declared ones; the packed weights
// are at most the estimate's two orientations of every weight.
//
// The second model stacks two layers (with dropout between them) and ties
// the output projection to the target embedding: the plans are its
// graphs', so the same holds of it.
func TestEstimateIsThePlan(t *testing.T) {
	for name, model := range map[string]string{
		"arena": `cell = "gru"
encoder = "birnn"
scorer = "concat"
embed = 8
hidden = 12
attention = 10`,
		"stacked": `cell = "lstm"
encoder = "birnn"
decoder = "luong"
scorer = "general"
embed = 12
hidden = 12
layers = 2
dropout = 0.2
tie_embeddings = true`,
	} {
		t.Run(name, func(t *testing.T) { estimateIsThePlan(t, name, model) })
	}
}

func estimateIsThePlan(t *testing.T, name, model string) {
	dir := t.TempDir()
	path := filepath.Join(dir, name+".toml")
	os.WriteFile(path, []byte(`name = "`+name+`"
[task]
name = "reverse"
min_len = 6
max_len = 6
vocab = 9
train = 64
dev = 16
test = 16
[model]
`+model+`
[train]
steps = 3
batch = 16
eval_every = 3
`), 0o644)
	e, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Run(t.Context(), Options{Out: dir, Workers: 1}); err != nil {
		t.Fatal(err)
	}
	runs, _ := e.Runs()
	raw, err := os.ReadFile(filepath.Join(dir, name, "runs", runs[0].ID, "final.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f Final
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	est, use := f.Memory, f.Arena
	if est == nil || use == nil || !est.Planned {
		t.Fatalf("final.json: estimate %+v, arena %+v: want a planned estimate and the arena's use", est, use)
	}
	if got, want := float64(use.Values), max(est.Activations, est.Decoding); got != want {
		t.Errorf("the arena held %v bytes of values, the plans' larger is %v (training %v, decoding %v)", got, want, est.Activations, est.Decoding)
	}
	if got := float64(use.Values + use.Work + use.Packed); got > est.Arena || got < est.Arena/2 {
		t.Errorf("the arena held %v bytes in all, the estimate %v", got, est.Arena)
	}
}
