package experiments

import (
	"math"
	"path/filepath"
	"slices"
	"testing"
)

// tinyAttn trains one seed each of dot, scaled-dot and two-head
// projected-dot for a few steps.
const tinyAttn = `name = "tiny-attn"
seeds = [1]
[task]
name = "reverse"
min_len = 3
max_len = 5
train = 200
dev = 10
test = 20
[model]
embed = 8
hidden = 16
attention = 8
heads = 2
[train]
steps = 20
batch = 8
lr = 0.003
eval_every = 20
[decode]
beam = 2
[sweep]
scorer = ["dot", "scaled-dot", "projected-dot"]
`

// TestAttnMetricsInFinal: every run's final.json holds key_std,
// query_std, logit_std and logit_range, finite and positive, from greedy
// decoding only (no _beam copies), and summary.csv has their columns.
// Derived bounds: the keys are RNN states, each component in (−1, 1), so
// their population sd is ≤ 1; and per score row var ≤ (max − min)²/4
// (Popoviciu), so the mean sd is ≤ half the mean range.
func TestAttnMetricsInFinal(t *testing.T) {
	out := t.TempDir()
	runExp(t, writeExp(t, tinyAttn), out, Options{Workers: 1})
	dir := filepath.Join(out, "tiny-attn")
	names := []string{"key_std", "query_std", "logit_std", "logit_range"}
	for _, sc := range []string{"dot", "scaled-dot", "projected-dot"} {
		f, err := ReadFinal(filepath.Join(dir, "runs", "scorer="+sc+"_seed=1"))
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			v, ok := f.Metrics[n]
			if !ok || math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
				t.Errorf("%s: %s = %v (present %v), want finite and > 0", sc, n, v, ok)
			}
			if _, ok := f.Metrics[n+"_beam"]; ok {
				t.Errorf("%s: %s_beam recorded; the spread is measured on greedy decoding only", sc, n)
			}
		}
		if k := f.Metrics["key_std"]; k > 1 {
			t.Errorf("%s: key_std %v > 1 for keys in (−1, 1)", sc, k)
		}
		if s, r := f.Metrics["logit_std"], f.Metrics["logit_range"]; s > r/2 {
			t.Errorf("%s: logit_std %v > logit_range/2 = %v", sc, s, r/2)
		}
	}
	head := metricColumns(t, dir)[0]
	for _, n := range names {
		if !slices.Contains(head, n) {
			t.Errorf("summary.csv lacks column %s (have %v)", n, head)
		}
	}
}
