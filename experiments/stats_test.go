package experiments

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// TestWelch: a = {0.9, 0.8, 0.85}, b = {0.6, 0.7, 0.5, 0.65}, by hand:
//
//	x̄_a = 0.85, s_a² = (0.05² + 0.05² + 0)/2 = 0.0025, s_a²/3 = 0.000833333
//	x̄_b = 0.6125, s_b² = (0.0125² + 0.0875² + 0.1125² + 0.0375²)/3
//	    = 0.021875/3 = 0.00729167, s_b²/4 = 0.00182292
//	t  = 0.2375/√0.00265625 = 0.2375/0.0515388 = 4.608177
//	df = 0.00265625² / (0.000833333²/2 + 0.00182292²/3) = 4.849596
//	p  = 2·∫_t^∞ f_df = 0.0062529, the density f_df integrated numerically
//	     (midpoint rule, 2·10⁵ points, in plain Python; the same scheme gives
//	     ∫_4.302653^∞ f_2 = 0.0250000).
//
// scipy.stats.ttest_ind(a, b, equal_var=False) computes the same quantities.
func TestWelch(t *testing.T) {
	a := []float64{0.9, 0.8, 0.85}
	b := []float64{0.6, 0.7, 0.5, 0.65}
	tv, df, p := Welch(a, b)
	if !near(tv, 4.608177, 1e-5) || !near(df, 4.849596, 1e-5) || !near(p, 0.0062529, 1e-6) {
		t.Errorf("Welch(a, b) = t %v, df %v, p %v; want 4.608177, 4.849596, 0.0062529", tv, df, p)
	}
	tv2, df2, p2 := Welch(b, a)
	if tv2 != -tv || df2 != df || p2 != p {
		t.Errorf("Welch(b, a) = %v, %v, %v; want t negated, df and p unchanged", tv2, df2, p2)
	}
	// Every seed agrees: no spread at all.
	if tv, _, p := Welch([]float64{1, 1, 1}, []float64{1, 1}); tv != 0 || p != 1 {
		t.Errorf("equal constants: t %v, p %v; want 0, 1", tv, p)
	}
	if tv, _, p := Welch([]float64{1, 1, 1}, []float64{0.5, 0.5}); !math.IsInf(tv, 1) || p != 0 {
		t.Errorf("different constants: t %v, p %v; want +Inf, 0", tv, p)
	}
	if _, _, p := Welch([]float64{1}, []float64{0.5, 0.6}); !math.IsNaN(p) {
		t.Errorf("one value: p %v, want NaN", p)
	}
}

// TestCI95: n = 3, x̄ = 0.85, s = 0.05, t₀.₉₇₅,₂ = 4.302653:
// 0.85 ± 4.302653·0.05/√3 = 0.85 ± 0.1242069 = [0.7257931, 0.9742069].
// n = 2, {1, 3}: x̄ = 2, s = √2, t₀.₉₇₅,₁ = 12.706205: 2 ± 12.706205 = [−10.706205, 14.706205].
func TestCI95(t *testing.T) {
	lo, hi := CI95([]float64{0.9, 0.8, 0.85})
	if !near(lo, 0.7257931, 1e-6) || !near(hi, 0.9742069, 1e-6) {
		t.Errorf("CI95 = [%v, %v], want [0.7257931, 0.9742069]", lo, hi)
	}
	lo, hi = CI95([]float64{1, 3})
	if !near(lo, -10.706205, 1e-5) || !near(hi, 14.706205, 1e-5) {
		t.Errorf("CI95 = [%v, %v], want [-10.706205, 14.706205]", lo, hi)
	}
	if lo, _ := CI95([]float64{1}); !math.IsNaN(lo) {
		t.Errorf("one value: %v, want NaN", lo)
	}
}

// statsSummary: scorers dot and general at two hidden sizes, three seeds;
// at hidden 64 dot and general take TestWelch's a and b.
func statsSummary() *Summary {
	s := &Summary{Keys: []string{"model.scorer", "model.hidden"}, Metrics: []string{"exact_match", "entropy"}}
	add := func(scorer string, hidden int64, ems ...float64) {
		for i, em := range ems {
			s.Runs = append(s.Runs, &Final{Run: scorer, Seed: int64(i + 1),
				Point:   map[string]any{"model.scorer": scorer, "model.hidden": hidden},
				Metrics: map[string]float64{"exact_match": em, "entropy": 1}})
		}
	}
	add("dot", 64, 0.9, 0.8, 0.85)
	add("general", 64, 0.6, 0.7, 0.5, 0.65)
	add("dot", 32, 0.5, 0.5, 0.5)
	add("general", 32, 0.5, 0.5, 0.5)
	return s
}

// TestComparisons: the points pair by seed (general's seed 4 has no
// partner): at hidden 64 dot {0.9, 0.8, 0.85} against general {0.6, 0.7,
// 0.5} — TestPairedT's case, p 0.0820149 — and at hidden 32 equal values
// (p 1). Holm over the two: 1·1 and 2·0.0820149 = 0.1640298.
func TestComparisons(t *testing.T) {
	cs := statsSummary().Comparisons()
	// Only exact_match is a headline metric here; the scorers pair up
	// within each hidden size, never across.
	if len(cs) != 2 {
		t.Fatalf("%d comparisons, want 2: %+v", len(cs), cs)
	}
	c := cs[1]
	if c.Group != "hidden=64" || c.A != "dot" || c.B != "general" || c.Metric != "exact_match" || c.N != 3 ||
		!near(c.P, 0.0820149, 1e-6) || !near(c.PHolm, 0.1640298, 1e-6) || c.PFlip != 0.25 || c.PFlipHolm != 0.5 || c.Significant() {
		t.Errorf("hidden 64: %+v, want dot vs general over 3 seeds, p 0.0820149 (Holm 0.1640298), sign-flip 0.25 (Holm 0.5), not significant", c)
	}
	if c := cs[0]; c.Group != "hidden=32" || c.P != 1 || c.PHolm != 1 || c.Significant() {
		t.Errorf("hidden 32: %+v, want p 1, not significant", c)
	}
}

func TestStatsFiles(t *testing.T) {
	s := statsSummary()
	dir := t.TempDir()
	if err := s.writeMD(filepath.Join(dir, "summary.md"), "x"); err != nil {
		t.Fatal(err)
	}
	if err := s.writePointsCSV(filepath.Join(dir, "points.csv")); err != nil {
		t.Fatal(err)
	}
	if err := s.writeComparisonsCSV(filepath.Join(dir, "comparisons.csv")); err != nil {
		t.Fatal(err)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for name, want := range map[string][]string{
		// TestComparisons's tests; the bootstrap interval of {0.5, 0.5, 0.5} is the value itself
		"summary.md": {"| scorer=dot hidden=32 | 3 | [0.500, 0.500] |",
			"| exact_match | hidden=64 | dot | general | 3 | 0.850 | 0.600 | 3.27 | 2.00 | 0.082 | 0.164 | 0.250 | 0.500 |  |",
			"| exact_match | hidden=32 | dot | general | 3 | 0.500 | 0.500 | 0.00 | 2.00 | 1.000 | 1.000 | 1.000 | 1.000 |  |"},
		"points.csv":      {"point,seeds,model.scorer,model.hidden,exact_match_mean,exact_match_sd,exact_match_ci_low,"},
		"comparisons.csv": {"exact_match,false,hidden=32,dot,general,3,0.5,0.5,0,2,1,1,1,1,false\n", "exact_match,false,hidden=64,dot,general,3,0.85"},
	} {
		got := read(name)
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("%s lacks %q:\n%s", name, w, got)
			}
		}
	}
}
