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

// The expected values below come from plain Python without scipy (not
// installed where they were made): Student's t CDF by its closed forms
// (Abramowitz & Stegun 26.7.3–4), quantiles by bisection of it, and the
// χ²₈ CDF by its closed form 1 − e^{−x/2}·Σ_{k<4} (x/2)^k/k!. The t
// quantiles agree with the printed t table: t₀.₉₇₅,₃ = 3.182,
// t₀.₉₇₅,₂ = 4.303, t₀.₉₇₅,₈ = 2.306.

// TestPairedDiff: d = a − b = {1, 2, 3, 4}: d̄ = 2.5, s_d = √(5/3) =
// 1.2909944, t₀.₉₇₅,₃ = 3.1824463; 2.5 ± 3.1824463·1.2909944/2 =
// [0.4457397, 4.5542603]. It excludes 0 as PairedT's p < 0.05 says.
func TestPairedDiff(t *testing.T) {
	a := []float64{11, 12, 13, 14}
	b := []float64{10, 10, 10, 10}
	m, lo, hi := PairedDiff(a, b)
	if !near(m, 2.5, 1e-12) || !near(lo, 0.4457397, 1e-6) || !near(hi, 4.5542603, 1e-6) {
		t.Errorf("PairedDiff = %v [%v, %v], want 2.5 [0.4457397, 4.5542603]", m, lo, hi)
	}
	if _, _, p := PairedT(a, b); !(p < 0.05) {
		t.Errorf("PairedT p %v: the interval excludes 0, so p < 0.05", p)
	}
	if m, lo, hi := PairedDiff(b, a); m != -2.5 || !near(lo, -4.5542603, 1e-6) || !near(hi, -0.4457397, 1e-6) {
		t.Errorf("swapped: %v [%v, %v], want the interval negated", m, lo, hi)
	}
	if m, _, _ := PairedDiff([]float64{1}, []float64{0}); !math.IsNaN(m) {
		t.Errorf("one pair: %v, want NaN", m)
	}
}

// TestTOST: d = {1, 2, 3, 4} (d̄ 2.5, s_d/√n = 0.6454972), margin 3:
// t_low = 5.5/0.6454972 = 8.5206, t_high = −0.5/0.6454972 = −0.7746,
// p = max(1 − F₃(8.5206), F₃(−0.7746)) = 0.2475127. Margin 6: 0.0061538.
// Margin 2.5 = d̄: p_high is F₃(0) = 0.5. TestPairedT's d = {0.3, 0.1,
// 0.35} (d̄ 0.25, s_d 0.1322876) with margin 0.5: 0.0410075.
func TestTOST(t *testing.T) {
	b := []float64{0, 0, 0, 0}
	for _, c := range []struct{ margin, want float64 }{{3, 0.2475127}, {6, 0.0061538}, {2.5, 0.5}} {
		if p := TOST([]float64{1, 2, 3, 4}, b, c.margin); !near(p, c.want, 1e-6) {
			t.Errorf("margin %v: p %v, want %v", c.margin, p, c.want)
		}
		if p := TOST(b, []float64{1, 2, 3, 4}, c.margin); !near(p, c.want, 1e-6) {
			t.Errorf("swapped, margin %v: p %v, want %v (symmetric)", c.margin, p, c.want)
		}
	}
	if p := TOST([]float64{0.9, 0.8, 0.85}, []float64{0.6, 0.7, 0.5}, 0.5); !near(p, 0.0410075, 1e-6) {
		t.Errorf("3 pairs: p %v, want 0.0410075", p)
	}
	if p := TOST([]float64{1, 1}, []float64{0.5, 0.5}, 1); p != 0 {
		t.Errorf("constant difference inside the margin: %v, want 0", p)
	}
	if p := TOST([]float64{1, 1}, []float64{0.5, 0.5}, 0.5); p != 1 {
		t.Errorf("constant difference at the margin: %v, want 1", p)
	}
	if p := TOST([]float64{1, 2}, []float64{0, 0}, 0); !math.IsNaN(p) {
		t.Errorf("margin 0: %v, want NaN", p)
	}
}

// TestPairedPower: n = 9 (ν = 8), sd 1. Independently, integrating over
// Z instead of V: |T| > c ⇔ V < ν(Z + λ)²/c², so power =
// ∫ φ(z)·F_χ²₈(8(z + λ)²/c²) dz (midpoint rule, 2·10⁵ points on
// [−14, 14]). Effect 1 (λ = 3) at 0.05 (c = 2.3060041): 0.7480171; at
// 0.05/3 (c = 3.0157618, Holm's first step over 3 tests): 0.5283804;
// effect 0.5 at 0.05: 0.2627461; effect 0 gives the level.
func TestPairedPower(t *testing.T) {
	for _, c := range []struct{ effect, level, want float64 }{
		{1, 0.05, 0.7480171}, {-1, 0.05, 0.7480171}, {1, 0.05 / 3, 0.5283804}, {0.5, 0.05, 0.2627461}, {0, 0.05, 0.05},
	} {
		if p := PairedPower(9, 1, c.effect, c.level); !near(p, c.want, 2e-5) {
			t.Errorf("effect %v, level %v: power %v, want %v", c.effect, c.level, p, c.want)
		}
	}
	if p := PairedPower(9, 0, 1, 0.05); !math.IsNaN(p) {
		t.Errorf("sd 0: %v, want NaN", p)
	}
}

// TestBootstrapExact: the percentile bootstrap against the exact
// bootstrap distribution, all n^n equally likely resamples enumerated.
// Where the exact means' CDF steps past 0.025 and 0.975 with levels more
// than 0.01 away on either side (10000 resamples put the empirical CDF
// within 0.0016 of the exact one, one sd), the 10000 random resamples
// must give the enumeration's percentiles. xs = {0, 0, 1} (27 resamples):
// the mean is k/3 with k ~ Binomial(3, 1/3), CDF 8/27, 20/27, 26/27 =
// 0.963, 1, so the interval is [0, 1]. xs = {0, 0, 0, 1} (256): k/4 with
// k ~ Binomial(4, 1/4), CDF 0.316, 0.738, 0.949, 0.996, 1, so [0, 0.75]
// — not the range [0, 1]. Sets of distinct values do not serve: their
// CDF steps near 0.025 are 1/256-sized. Two calls give the same interval
// (a fixed generator).
func TestBootstrapExact(t *testing.T) {
	for _, c := range []struct {
		xs     []float64
		lo, hi float64
	}{{[]float64{0, 0, 1}, 0, 1}, {[]float64{0, 0, 0, 1}, 0, 0.75}} {
		xs, n := c.xs, len(c.xs)
		var means []float64
		total := int(math.Pow(float64(n), float64(n)))
		for m := range total {
			s := 0.0
			for k, r := 0, m; k < n; k, r = k+1, r/n {
				s += xs[r%n]
			}
			means = append(means, s/float64(n))
		}
		slices.Sort(means)
		// exact percentile: the smallest mean whose CDF reaches q, with
		// the CDF levels on either side of its step clear of q by 0.01.
		exact := func(q float64) float64 {
			for i, v := range means {
				if float64(i+1)/float64(total) < q {
					continue
				}
				j := i
				for j+1 < total && means[j+1] == v {
					j++
				}
				below, above := float64(slices.Index(means, v))/float64(total), float64(j+1)/float64(total)
				if q-below < 0.01 || above-q < 0.01 {
					t.Fatalf("%v: q %v within 0.01 of a CDF level at %v (%v, %v)", xs, q, v, below, above)
				}
				return v
			}
			return math.NaN()
		}
		wl, wh := exact(0.025), exact(0.975)
		if wl != c.lo || wh != c.hi {
			t.Errorf("%v: enumeration gives [%v, %v], by hand [%v, %v]", xs, wl, wh, c.lo, c.hi)
		}
		lo, hi := BootstrapCI(xs)
		if lo != wl || hi != wh {
			t.Errorf("BootstrapCI(%v) = [%v, %v], the exact bootstrap's percentiles [%v, %v]", xs, lo, hi, wl, wh)
		}
		if lo2, hi2 := BootstrapCI(xs); lo2 != lo || hi2 != hi {
			t.Errorf("not deterministic: [%v, %v] then [%v, %v]", lo, hi, lo2, hi2)
		}
	}
}
