package experiments

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestPairedT: a = {0.9, 0.8, 0.85}, b = {0.6, 0.7, 0.5}. By hand:
// d = {0.3, 0.1, 0.35}, d̄ = 0.25, s_d² = (0.05² + 0.15² + 0.1²)/2 = 0.0175,
// t = 0.25/√(0.0175/3) = 3.2732684, df = 2; for df = 2 the two-sided p has
// the closed form 1 − |t|/√(2 + t²) = 1 − 3.2732684/3.5657099 = 0.0820149.
// scipy 1.10.1 (Debian python3-scipy 1.10.1-2), stats.ttest_rel(a, b):
// statistic 3.273268353539888, pvalue 0.08201490795684306.
// Eight pairs, from the same scipy: ttest_rel gives t 2.7539046789666255,
// p 0.028343931565908566.
func TestPairedT(t *testing.T) {
	tv, df, p := PairedT([]float64{0.9, 0.8, 0.85}, []float64{0.6, 0.7, 0.5})
	if !near(tv, 3.273268353539888, 1e-12) || df != 2 || !near(p, 0.08201490795684306, 1e-12) {
		t.Errorf("PairedT = %v, %v, %v; want 3.2732684, 2, 0.0820149", tv, df, p)
	}
	tv, df, p = PairedT(a8, b8)
	if !near(tv, 2.7539046789666255, 1e-12) || df != 7 || !near(p, 0.028343931565908566, 1e-12) {
		t.Errorf("PairedT(8 pairs) = %v, %v, %v; want scipy's 2.7539047, 7, 0.0283439", tv, df, p)
	}
	if tv, _, p := PairedT([]float64{1, 2}, []float64{1, 2}); tv != 0 || p != 1 {
		t.Errorf("equal pairs: t %v p %v, want 0, 1", tv, p)
	}
	if tv, _, p := PairedT([]float64{2, 3}, []float64{1, 2}); !math.IsInf(tv, 1) || p != 0 {
		t.Errorf("constant difference: t %v p %v, want +Inf, 0", tv, p)
	}
	if _, _, p := PairedT([]float64{1}, []float64{2}); !math.IsNaN(p) {
		t.Errorf("one pair: p %v, want NaN", p)
	}
}

// a8, b8: eight seeds of two scorers.
var a8, b8 = []float64{0.91, 0.42, 0.88, 0.95, 0.39, 0.90, 0.87, 0.93}, []float64{0.85, 0.40, 0.80, 0.90, 0.41, 0.86, 0.88, 0.84}

// TestSignFlip: d = {0.3, 0.1, 0.35} (TestPairedT's): of the 8 sign
// assignments only all-plus and all-minus reach |Σ| = 0.75, p = 2/8 = 0.25.
// d = {1, −1}: |Σ| = 0 is reached by all 4, p = 1. Eight pairs: scipy
// 1.10.1 stats.permutation_test((a8 − b8,), mean, permutation_type=
// 'samples', n_resamples=inf) — exact sign flips — gives 0.046875 (12/256).
func TestSignFlip(t *testing.T) {
	for _, c := range []struct {
		a, b []float64
		want float64
	}{
		{[]float64{0.9, 0.8, 0.85}, []float64{0.6, 0.7, 0.5}, 0.25},
		{[]float64{1, 0}, []float64{0, 1}, 1},
		{a8, b8, 0.046875},
	} {
		if got := SignFlip(c.a, c.b); got != c.want {
			t.Errorf("SignFlip(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
	// above 20 pairs it samples: 30 equal positive differences reach
	// |Σ| only under all-plus or all-minus (2/2³⁰), so p is (k+1)/(N+1)
	// with k almost surely 0: 1/100001
	a, b := make([]float64, 30), make([]float64, 30)
	for i := range a {
		a[i] = 1
	}
	if got := SignFlip(a, b); !near(got, 1.0/100001, 1e-15) {
		t.Errorf("30 equal differences: %v, want 1/100001", got)
	}
}

// TestHolm: p = {0.01, 0.04, 0.03, NaN}, m = 3 (NaN left out): sorted
// 0.01, 0.03, 0.04 → 3·0.01 = 0.03, max(0.03, 2·0.03) = 0.06,
// max(0.06, 1·0.04) = 0.06; in the input's order {0.03, 0.06, 0.06, NaN}.
func TestHolm(t *testing.T) {
	got := Holm([]float64{0.01, 0.04, 0.03, math.NaN()})
	want := []float64{0.03, 0.06, 0.06}
	for i, w := range want {
		if !near(got[i], w, 1e-15) {
			t.Errorf("Holm[%d] = %v, want %v", i, got[i], w)
		}
	}
	if !math.IsNaN(got[3]) {
		t.Errorf("Holm of NaN = %v", got[3])
	}
	if got := Holm([]float64{0.5, 0.9}); !slices.Equal(got, []float64{1, 1}) {
		t.Errorf("Holm caps at 1: %v", got)
	}
}

// TestBootstrapCI: xs = {0, 1}: a resample's mean is 0, ½ or 1 with chance
// ¼, ½, ¼, so over 10000 resamples the 2.5th percentile is 0 and the
// 97.5th 1. A constant gives the constant; every interval lies inside
// [min, max] (a t-interval of {0, 1} is [−5.85, 6.85]); one value gives NaN.
func TestBootstrapCI(t *testing.T) {
	if lo, hi := BootstrapCI([]float64{0, 1}); lo != 0 || hi != 1 {
		t.Errorf("{0, 1}: [%v, %v], want [0, 1]", lo, hi)
	}
	if lo, hi := BootstrapCI([]float64{0.5, 0.5, 0.5}); lo != 0.5 || hi != 0.5 {
		t.Errorf("constant: [%v, %v]", lo, hi)
	}
	xs := []float64{0.68, 0.16, 0.62}
	if lo, hi := BootstrapCI(xs); lo < 0.16 || hi > 0.68 || lo >= hi {
		t.Errorf("%v: [%v, %v] not inside [0.16, 0.68]", xs, lo, hi)
	}
	if lo, _ := BootstrapCI([]float64{1}); !math.IsNaN(lo) {
		t.Errorf("one value: %v", lo)
	}
}

// TestReportKeys: [report] primary puts the claim's metric first, marked;
// [report] success counts the seeds that pass (dev_exact_match ≥ 0: every
// seed, "2 of 2"); a malformed threshold is refused at its key.
func TestReportKeys(t *testing.T) {
	text := tiny + "[report]\nprimary = \"aer\"\nsuccess = \"dev_exact_match >= 0\"\n"
	out := t.TempDir()
	runExp(t, writeExp(t, text), out, Options{Workers: 1})
	data, err := os.ReadFile(filepath.Join(out, "tiny", "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	md := string(data)
	cmp := md[strings.Index(md, "## Pairwise comparisons"):]
	first := strings.Split(cmp[strings.Index(cmp, "|---"):], "\n")[1]
	if !strings.HasPrefix(first, "| aer (primary) | dot | concat | 2 |") || !strings.Contains(cmp, "primary metric ([report] primary) is aer") {
		t.Errorf("the primary metric is not compared first:\n%s", cmp)
	}
	for _, w := range []string{"## Success counts", "| scorer=dot | 2 of 2 | 1, 2 |", "| scorer=concat | 2 of 2 | 1, 2 |"} {
		if !strings.Contains(md, w) {
			t.Errorf("summary.md lacks %q:\n%s", w, md)
		}
	}
	bad := writeExp(t, tiny+"[report]\nsuccess = \"dev_exact_match > 0.9\"\n")
	if _, err := Load(bad); err == nil || !strings.Contains(err.Error(), "[report] success") || !strings.Contains(err.Error(), "METRIC >= X") {
		t.Errorf("bad success: %v", err)
	}
}
