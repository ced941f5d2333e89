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
	// The difference, by hand: d = {0.3, 0.1, 0.35}, d̄ = 0.25, s_d =
	// 0.1322876; t₀.₉₇₅,₂ = 4.302653, so 0.25 ± 0.3286205 = [−0.0786205,
	// 0.5786205]. The bootstrap: of the 27 resamples of 3 differences the
	// lowest mean (0.1) and the highest (0.35) each have chance 1/27 >
	// 0.025, so [0.1, 0.35]. Power for the observed 0.25 (λ = 0.25·√3/s_d),
	// ν = 2, from ∫ φ(z)·F_χ²₂(2(z + λ)²/c²) dz with F_χ²₂(x) = 1 − e^{−x/2}
	// (plain Python, midpoint rule): 0.4365151 at 0.05 (c = 4.302653),
	// 0.2516068 at 0.05/2 (Holm's first step over the 2 comparisons).
	if !near(c.Diff, 0.25, 1e-12) || !near(c.DiffLo, -0.0786205, 1e-6) || !near(c.DiffHi, 0.5786205, 1e-6) ||
		!near(c.BootLo, 0.1, 1e-12) || !near(c.BootHi, 0.35, 1e-12) ||
		!near(c.Effect, 0.25, 1e-12) || !near(c.Power, 0.4365151, 2e-5) || !near(c.PowerHolm, 0.2516068, 2e-5) ||
		c.Margin != 0 || !math.IsNaN(c.PTOST) || c.Equivalent() {
		t.Errorf("hidden 64: %+v, want a − b 0.25 [−0.0786205, 0.5786205], bootstrap [0.1, 0.35], power 0.4365151, Holm 0.2516068, no TOST", c)
	}
	if c := cs[0]; c.Diff != 0 || c.DiffLo != 0 || c.DiffHi != 0 || !math.IsNaN(c.Power) {
		t.Errorf("hidden 32: %+v, want a − b 0 [0, 0] and no power (no spread)", c)
	}
}

// TestComparisonsMargin: [report] margin 0.3 on the primary exact_match.
// Hidden 64 (d = {0.3, 0.1, 0.35}): t_low = 0.55/0.0763763, t_high =
// −0.05/0.0763763, TOST p = max(1 − F₂(7.2012), F₂(−0.6547)) = 0.2899580
// (F₂(t) = ½ + t/(2√(2 + t²))). Hidden 32: every difference 0, inside the
// margin, p 0. Holm over {0, 0.2899580}: 0 and 0.2899580, so hidden 32 is
// equivalent and hidden 64 is not. Power is now for the margin: 0.3 with
// s_d 0.1322876, ν = 2 (as in TestComparisons): 0.5522123 at 0.05,
// 0.3338302 at 0.025.
func TestComparisonsMargin(t *testing.T) {
	s := statsSummary()
	s.Report = Report{Primary: "exact_match", Margin: 0.3}
	cs := s.Comparisons()
	if len(cs) != 2 {
		t.Fatalf("%d comparisons, want 2", len(cs))
	}
	if c := cs[1]; c.Margin != 0.3 || !near(c.PTOST, 0.2899580, 1e-6) || !near(c.PTOSTHolm, 0.2899580, 1e-6) || c.Equivalent() ||
		c.Effect != 0.3 || !near(c.Power, 0.5522123, 2e-5) || !near(c.PowerHolm, 0.3338302, 2e-5) {
		t.Errorf("hidden 64: %+v, want TOST p 0.2899580 (Holm the same), not equivalent, power 0.5522123 (Holm 0.3338302) for 0.3", c)
	}
	if c := cs[0]; c.PTOST != 0 || c.PTOSTHolm != 0 || !c.Equivalent() {
		t.Errorf("hidden 32: %+v, want TOST p 0, equivalent", c)
	}
	dir := t.TempDir()
	if err := s.writeMD(filepath.Join(dir, "summary.md"), "x"); err != nil {
		t.Fatal(err)
	}
	if err := s.writeComparisonsCSV(filepath.Join(dir, "comparisons.csv")); err != nil {
		t.Fatal(err)
	}
	if err := writeReport(dir, s, &FigureSet{}); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	csv, _ := os.ReadFile(filepath.Join(dir, "comparisons.csv"))
	html, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	for _, w := range []string{"<th>a − b [95% t]</th><th>a − b bootstrap</th><th>power</th><th>power Holm</th><th>TOST p</th><th>TOST p Holm</th><th></th></tr>",
		"<td>0.250 [-0.079, 0.579]</td><td>[0.100, 0.350]</td><td>0.552</td><td>0.334</td><td>0.290</td><td>0.290</td><td></td></tr>"} {
		if !strings.Contains(string(html), w) {
			t.Errorf("report.html lacks %q", w)
		}
	}
	for _, w := range []string{"| TOST p | TOST p Holm |  |", "| < 0.001 | < 0.001 | ≈ |", "| 0.290 | 0.290 |  |", "tests that |a − b| < 0.3 on exact_match"} {
		if !strings.Contains(string(md), w) {
			t.Errorf("summary.md lacks %q:\n%s", w, md)
		}
	}
	if !strings.Contains(string(csv), ",0.3,0,0,true\n") || !strings.Contains(string(csv), ",0.3,0.28995798") {
		t.Errorf("comparisons.csv lacks the margin, TOST p and equivalent:\n%s", csv)
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
			"| exact_match | hidden=64 | dot | general | 3 | 0.850 | 0.600 | 3.27 | 2.00 | 0.082 | 0.164 | 0.250 | 0.500 |  | 0.250 [-0.079, 0.579] | [0.100, 0.350] | 0.437 | 0.252 |",
			"| exact_match | hidden=32 | dot | general | 3 | 0.500 | 0.500 | 0.00 | 2.00 | 1.000 | 1.000 | 1.000 | 1.000 |  |"},
		"points.csv": {"point,seeds,model.scorer,model.hidden,exact_match_mean,exact_match_sd,exact_match_ci_low,"},
		// the new columns after the old ones; with no margin the TOST cells are empty
		"comparisons.csv": {"p_signflip_holm,significant,diff,diff_ci_low,diff_ci_high,diff_boot_low,diff_boot_high,power_effect,power,power_holm,margin,p_tost,p_tost_holm,equivalent\n",
			"exact_match,false,hidden=32,dot,general,3,0.5,0.5,0,2,1,1,1,1,false,0,0,0,0,0,0,,,,,,\n", "exact_match,false,hidden=64,dot,general,3,0.85"},
	} {
		got := read(name)
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("%s lacks %q:\n%s", name, w, got)
			}
		}
	}
}

// TestReportMargin: [report] margin is refused at its key when negative,
// or without [report] primary (its units); a positive one loads.
func TestReportMargin(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"[report]\nprimary = \"aer\"\nmargin = -0.1\n", "finite number > 0"},
		{"[report]\nprimary = \"aer\"\nmargin = inf\n", "finite number > 0"},
		{"[report]\nmargin = 0.1\n", "set [report] primary"},
	} {
		_, err := Load(writeExp(t, tiny+c.text))
		if err == nil || !strings.Contains(err.Error(), "[report] margin") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error at [report] margin saying %q", c.text, err, c.want)
		}
	}
	// From the file to the outputs: tiny's dot and concat over 2 seeds,
	// compared on aer with a margin of 0.5.
	out := t.TempDir()
	runExp(t, writeExp(t, tiny+"[report]\nprimary = \"aer\"\nmargin = 0.5\n"), out, Options{Workers: 1})
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(out, "tiny", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	md := read("summary.md")
	for _, w := range []string{"| a − b [95% t] | a − b bootstrap | power | power Holm | TOST p | TOST p Holm |  |", "tests that |a − b| < 0.5 on aer ([report] margin)"} {
		if !strings.Contains(md, w) {
			t.Errorf("summary.md lacks %q:\n%s", w, md)
		}
	}
	rows := strings.Split(strings.TrimSpace(read("comparisons.csv")), "\n")
	if len(rows) < 2 || !strings.HasPrefix(rows[1], "aer,true,") {
		t.Fatalf("comparisons.csv has no aer comparison first:\n%s", strings.Join(rows, "\n"))
	}
	for _, r := range rows[1:] {
		f := strings.Split(r, ",")
		if len(f) != 27 {
			t.Fatalf("%d columns, want 27: %s", len(f), r)
		}
		// aer, the primary, carries the margin and a TOST p; the others none
		if primary := f[0] == "aer"; primary != (f[23] == "0.5" && f[24] != "" && f[26] != "") || (!primary && f[24] != "") {
			t.Errorf("margin, p_tost, equivalent = %q, %q, %q on %s", f[23], f[24], f[26], f[0])
		}
	}
}
