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

// TestAttnShapePools: attnShape weighs every row the same, across the
// examples it is given. By hand, for rows [0.5, 0.5, 0] and [1, 0, 0] (one
// example) and [0, 0, 1] (another): entropy (ln 2 + 0 + 0)/3; support
// (2 + 1 + 1)/3, 0.5 alone holding less than 90% of the first row; top-1
// (0.5 + 1 + 1)/3. An empty example adds no row, and with no rows nothing
// is recorded.
func TestAttnShapePools(t *testing.T) {
	var a attnShape
	a.add([][]float64{{0.5, 0.5, 0}, {1, 0, 0}})
	a.add(nil)
	a.add([][]float64{{0, 0, 1}})
	m := map[string]float64{}
	a.record(m, "_forced")
	want := map[string]float64{"entropy_forced": math.Log(2) / 3, "support_forced": 4.0 / 3, "top1_forced": 2.5 / 3}
	if len(m) != len(want) {
		t.Errorf("recorded %v, want the keys of %v", m, want)
	}
	for k, v := range want {
		if got, ok := m[k]; !ok || math.Abs(got-v) > 1e-12 {
			t.Errorf("%s = %v (present %v), want %v", k, got, ok, v)
		}
	}
	var none attnShape
	none.add(nil)
	empty := map[string]float64{}
	none.record(empty, "")
	if len(empty) != 0 {
		t.Errorf("no rows: recorded %v, want nothing", empty)
	}
}
