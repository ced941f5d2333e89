package experiments

import (
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestTokenBatch: batches on a hand-built corpus of four pairs, their rows
// (source, target with </s>): 0 (3, 4), 1 (5, 2), 2 (2, 2), 3 (8, 6).
func TestTokenBatch(t *testing.T) {
	rows := [][2]int{{3, 4}, {5, 2}, {2, 2}, {8, 6}}
	lens := func(i int) (int, int) { return rows[i][0], rows[i][1] }
	asIs := func(s, t int) (int, int) { return s, t }
	by4 := func(s, t int) (int, int) { return bucketLen(s, 4, 0), bucketLen(t, 4, 0) }
	for _, c := range []struct {
		name  string
		n     int
		draws []int
		round func(s, t int) (int, int)
		want  []int
	}{
		// 0: 1·max(3, 4) = 4; +2: 2·max(3, 4) = 8; +1: 3·max(5, 4) = 15 > 12
		{"as is", 12, []int{0, 2, 1, 3}, asIs, []int{0, 2}},
		// the same pairs in 15 tokens: 15 ≤ 15; +3: 4·max(8, 6) = 32
		{"to the token", 15, []int{0, 2, 1, 3}, asIs, []int{0, 2, 1}},
		// lengths rounded up to 4: 2 → (4, 4): 4; 2 again: 8; +0 (3, 4) →
		// (4, 4): 12; +1 (5, 4) → (8, 4): 4·8 = 32 > 12
		{"bucket 4", 12, []int{2, 2, 0, 1}, by4, []int{2, 2, 0}},
		// pair 3 first: 8 ≤ 8; +2: 2·8 = 16 > 8
		{"long first", 8, []int{3, 2}, asIs, []int{3}},
	} {
		k := 0
		draw := func() int { k++; return c.draws[k-1] }
		got, err := tokenBatch(c.n, draw, lens, c.round)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%s: batch %v, %v; want %v", c.name, got, err, c.want)
		}
	}
	// a pair alone past the limit: an error naming it
	if _, err := tokenBatch(5, func() int { return 3 }, lens, asIs); err == nil || !strings.Contains(err.Error(), "training pair 3 alone is 8 tokens, past [train] batch_tokens = 5") {
		t.Errorf("pair 3 in 5 tokens: %v", err)
	}
	// random draws: every batch is within n, and the draw that ended it
	// would have taken it past n
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		var drawn []int
		draw := func() int { j := rng.IntN(4); drawn = append(drawn, j); return j }
		got, err := tokenBatch(20, draw, lens, asIs)
		if err != nil {
			t.Fatal(err)
		}
		count := func(idx []int) int {
			S, T := 0, 0
			for _, i := range idx {
				s, t := lens(i)
				S, T = max(S, s), max(T, t)
			}
			return len(idx) * max(S, T)
		}
		if !slices.Equal(got, drawn[:len(drawn)-1]) || count(got) > 20 || count(drawn) <= 20 {
			t.Fatalf("drew %v, batch %v of %d tokens", drawn, got, count(got))
		}
	}
}

// TestTokenShapes: for n = 100, sources of up to 10 tokens and targets of
// up to 20, by hand: B0 = ⌊100/20⌋ = 5 at (10, 20); then B = 10 with
// lengths ≤ ⌊100/5⌋ = 20: (10, 20); B = 20, ≤ 10: (10, 10); B = 40, ≤ 5;
// B = 80, ≤ 2; B = 160, ≤ 1 (the target planned at 2). Every batch
// B·max(S, T) ≤ 100 is at most one of them in each of B, S and T.
func TestTokenShapes(t *testing.T) {
	got := tokenShapes(100, 10, 20, 1)
	want := []tokenShape{{5, 10, 20}, {10, 10, 20}, {20, 10, 10}, {40, 5, 5}, {80, 2, 2}, {160, 1, 2}}
	if !slices.Equal(got, want) {
		t.Fatalf("shapes %v, want %v", got, want)
	}
	for B := 1; B <= 100; B++ {
		for S := 1; S <= 10; S++ {
			for T := 1; T <= 20; T++ {
				if B*max(S, T) > 100 {
					continue
				}
				if !slices.ContainsFunc(got, func(sh tokenShape) bool { return B <= sh.B && S <= sh.S && T <= sh.T }) {
					t.Errorf("batch (%d, %d, %d) is above every shape", B, S, T)
				}
			}
		}
	}
}

// tokenRun is oneRun with batch_tokens = 24 in place of batch = 4: the
// reversal pairs have 3 to 5 tokens (targets 4 to 6 with </s>), so a
// batch holds 4 to 8 pairs.
func tokenRun(steps string) string {
	return strings.Replace(strings.Replace(oneRun, "STEPS", steps, 1), "batch = 4\n", "batch_tokens = 24\n", 1)
}

// TestBatchTokensRun: a run with batch_tokens trains, and interrupted at
// step 12 and resumed it gives the metrics of an uninterrupted run, bit
// for bit (each step's batch comes from the step's own generator). Its
// memory estimate bounds what its arena held.
func TestBatchTokensRun(t *testing.T) {
	path := writeExp(t, tokenRun("20"))
	ref, out := t.TempDir(), t.TempDir()
	a := runExp(t, path, ref, Options{Workers: 1})
	b := interruptAt(t, path, out, 12)
	la, _ := ReadMetrics(filepath.Join(ref, "prov", "runs", "seed=1"))
	lb, _ := ReadMetrics(filepath.Join(out, "prov", "runs", "seed=1"))
	if len(la) != 4 || len(lb) != 4 {
		t.Fatalf("%d and %d lines of metrics, want 4", len(la), len(lb))
	}
	for i := range la {
		for _, k := range []string{"loss", "dev_token_acc"} {
			if la[i][k] != lb[i][k] {
				t.Errorf("line %d: %s %v uninterrupted, %v resumed", i+1, k, la[i][k], lb[i][k])
			}
		}
	}
	fa, fb := a.Finished[0], b.Finished[0]
	for k, v := range fa.Metrics {
		if fb.Metrics[k] != v {
			t.Errorf("test %s: %v uninterrupted, %v resumed", k, v, fb.Metrics[k])
		}
	}
	if est, use := fa.Memory, fa.Arena; est == nil || use == nil || float64(use.Values+use.Work+use.Packed) > est.Arena {
		t.Errorf("estimate %+v, arena %+v: the arena held more than the estimate", est, use)
	}
	// the same run with batches of 4 sentences trains otherwise
	c := runExp(t, writeExp(t, strings.Replace(oneRun, "STEPS", "20", 1)), t.TempDir(), Options{Workers: 1})
	if c.Finished[0].Metrics["token_acc"] == fa.Metrics["token_acc"] && c.Finished[0].Metrics["perplexity"] == fa.Metrics["perplexity"] {
		t.Error("batch_tokens = 24 trained as batch = 4 did")
	}
}

// TestBadBatchTokens: batch_tokens beside batch, below the longest pair,
// or negative is refused, naming the keys.
func TestBadBatchTokens(t *testing.T) {
	checkBadFiles(t, []badFile{
		{"both", goodHead + "[train]\nbatch = 8\nbatch_tokens = 100\n", []string{"bad.toml:10", "[train] batch_tokens", "[train] batch and [train] batch_tokens both size the training batches"}},
		{"swept beside batch", goodHead + "[train]\nbatch = 8\n[sweep]\n\"train.batch_tokens\" = [100, 200]\n", []string{`[sweep] "train.batch_tokens"`, "give one"}},
		{"negative", goodHead + "[train]\nbatch_tokens = -1\n", []string{"[train] batch_tokens", "must be ≥ 0"}},
		// reverse's default lengths reach 10 tokens (targets 11 with </s>)
		{"below the longest", goodHead + "[train]\nbatch_tokens = 6\n", []string{"[train] batch_tokens", "6 is less than the longest pair's"}},
	})
}
