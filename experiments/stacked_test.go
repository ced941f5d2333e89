package experiments

import (
	"path/filepath"
	"strings"
	"testing"
)

// stackedExp is a small reversal model with [model] layers = 2 (dropout
// 0.1 between the layers) and tie_embeddings (embed = hidden = 16).
const stackedExp = `name = "stacked"
[task]
name = "reverse"
min_len = 3
max_len = 5
train = 300
dev = 20
test = 30
[model]
cell = "lstm"
decoder = "luong"
scorer = "general"
embed = 16
hidden = 16
layers = 2
dropout = 0.1
tie_embeddings = true
[train]
steps = 60
batch = 8
lr = 0.01
eval_every = 20
`

// TestStackedRunResumes: a run of a two-layer model with tied embeddings
// learns (its training loss at step 60 below that at step 20: 60 Adam
// steps at lr 0.01 on the reversal task take a loss of ln 14 ≈ 2.6 well
// down), and one interrupted at step 25 and resumed from its step-20
// checkpoint writes the same metrics as the uninterrupted run, line for
// line: the stacked cells, the bridges of both layers and the one tied
// table come back from the checkpoint, and the dropout masks between
// the layers are drawn again as they were.
func TestStackedRunResumes(t *testing.T) {
	path := writeExp(t, stackedExp)
	ref := t.TempDir()
	runExp(t, path, ref, Options{Workers: 1})
	e, _ := Load(path)
	runs, _ := e.Runs()
	want, err := ReadMetrics(filepath.Join(ref, "stacked", "runs", runs[0].ID))
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 3 || !(want[2]["loss"] < want[0]["loss"]) {
		t.Fatalf("metrics.jsonl %v: want 3 evaluations, the loss falling", want)
	}
	out := t.TempDir()
	interruptAt(t, path, out, 25)
	got, err := ReadMetrics(filepath.Join(out, "stacked", "runs", runs[0].ID))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("resumed: %d evaluations, uninterrupted %d", len(got), len(want))
	}
	for i := range want {
		for _, k := range []string{"loss", "dev_token_acc", "dev_exact_match"} {
			if got[i][k] != want[i][k] {
				t.Errorf("step %v %s: resumed %v, uninterrupted %v", want[i]["step"], k, got[i][k], want[i][k])
			}
		}
	}
}

// TestLayersTieRefused: layers below 1, layers > 1 on an encoder without
// recurrent layers, and tie_embeddings with embed ≠ hidden are refused
// at load, naming the file, line and key, and the sizes.
func TestLayersTieRefused(t *testing.T) {
	for _, tc := range []struct{ model, want string }{
		{"layers = 0", ":7: [model] layers: must be > 0, got 0"},
		{"layers = -2", ":7: [model] layers: must be > 0, got -2"},
		{"tie_embeddings = true", ":7: [model] tie_embeddings: the output projection reads hidden = 64 values and the target embedding has embed = 32"},
	} {
		text := "name = \"x\"\n[task]\nname = \"reverse\"\nmax_len = 5\n[model]\nembed = 32\n" + tc.model + "\n"
		_, err := Load(writeExp(t, text))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v\nwant %q", tc.model, err, tc.want)
		}
	}
}
