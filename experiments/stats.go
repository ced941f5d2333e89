package experiments

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"
)

// CI95 is the 95% confidence interval of the mean of xs (Student's t):
//
//	x̄ ± t_{0.975, n−1} · s/√n,   s the sample sd (n − 1)
//
// For n = 3, t_{0.975, 2} = 4.302653. It is (NaN, NaN) for fewer than two
// values.
func CI95(xs []float64) (lo, hi float64) {
	n := len(xs)
	if n < 2 {
		return math.NaN(), math.NaN()
	}
	mean, sd := MeanSD(xs)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(0.975)
	h := t * sd / math.Sqrt(float64(n))
	return mean - h, mean + h
}

// Welch is Welch's two-sample t-test of equal means without assuming equal
// variances (two-sided):
//
//	t  = (x̄_a − x̄_b) / √(s_a²/n_a + s_b²/n_b)
//	df = (s_a²/n_a + s_b²/n_b)² / ((s_a²/n_a)²/(n_a−1) + (s_b²/n_b)²/(n_b−1))   (Welch–Satterthwaite)
//	p  = 2·(1 − F_df(|t|)),  F_df the Student's t CDF
//
// It is scipy.stats.ttest_ind(a, b, equal_var=False). With both variances 0
// it gives p = 1 when the means are equal and p = 0 (t = ±Inf, df = NaN)
// when they differ: every seed agrees. Fewer than two values on a side give
// NaN throughout.
func Welch(a, b []float64) (t, df, p float64) {
	na, nb := float64(len(a)), float64(len(b))
	if na < 2 || nb < 2 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	ma, sa := MeanSD(a)
	mb, sb := MeanSD(b)
	va, vb := sa*sa/na, sb*sb/nb
	if va+vb == 0 {
		if ma == mb {
			return 0, math.NaN(), 1
		}
		return math.Copysign(math.Inf(1), ma-mb), math.NaN(), 0
	}
	t = (ma - mb) / math.Sqrt(va+vb)
	df = (va + vb) * (va + vb) / (va*va/(na-1) + vb*vb/(nb-1))
	p = 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Survival(math.Abs(t))
	return t, df, p
}

// Alpha is the significance level of the pairwise comparisons: a
// difference whose Holm-adjusted p < Alpha is marked significant.
const Alpha = 0.05

// headlineMetrics are the metrics compared pairwise, when present (after
// [report] primary, when the file names one).
var headlineMetrics = []string{"exact_match", "bleu", "aer"}

// Comparison compares two sweep points on one metric, paired by seed.
type Comparison struct {
	Metric  string
	Primary bool   // the file's [report] primary metric
	Group   string // the other swept keys' values the two points share ("" when none)
	A, B    string // the points' labels (the scorer, when scorers are swept)
	I, J    int    // the points' indices in Points()
	N       int    // the seeds both points have
	MeanA   float64
	MeanB   float64
	T, DF   float64 // PairedT
	P       float64 // PairedT's p
	PHolm   float64 // P adjusted by Holm across the metric's comparisons
	PFlip   float64 // SignFlip's p
	// PFlipHolm is PFlip adjusted by Holm across the metric's comparisons.
	PFlipHolm float64
	// Diff is the mean paired difference a − b, DiffLo and DiffHi its 95%
	// t-interval (PairedDiff), BootLo and BootHi its 95% percentile
	// bootstrap interval (BootstrapCI of the differences).
	Diff, DiffLo, DiffHi float64
	BootLo, BootHi       float64
	// Effect is the difference Power and PowerHolm are computed for: the
	// margin on the primary metric when [report] margin is set, else |Diff|
	// (the observed difference). Power is the paired t-test's at Alpha,
	// PowerHolm at Alpha/m, m the family's size (PairedPower, the
	// differences' sample sd as the true sd).
	Effect, Power, PowerHolm float64
	// Margin is [report] margin on the primary metric (0 otherwise); PTOST
	// is TOST's p that |a − b| < Margin, PTOSTHolm it Holm-adjusted across
	// the metric's comparisons (NaN without a margin).
	Margin, PTOST, PTOSTHolm float64
	sd                       float64 // the differences' sample sd
}

// Significant reports a Holm-adjusted paired t p < Alpha.
func (c Comparison) Significant() bool { return c.PHolm < Alpha }

// Equivalent reports a Holm-adjusted TOST p < Alpha: the difference lies
// within ±Margin.
func (c Comparison) Equivalent() bool { return c.PTOSTHolm < Alpha }

// comparedMetrics are the metrics Comparisons tests: the primary first.
func (s *Summary) comparedMetrics() []string {
	var out []string
	if p := s.Report.Primary; p != "" && slices.Contains(s.Metrics, p) {
		out = append(out, p)
	}
	for _, m := range headlineMetrics {
		if m != s.Report.Primary && slices.Contains(s.Metrics, m) {
			out = append(out, m)
		}
	}
	return out
}

// Comparisons tests every pair of sweep points on the primary metric and
// each headline metric present (exact_match, bleu, aer), paired by seed
// (the seeds both points ran): the paired t-test and the sign-flip
// permutation test, each Holm-corrected across that metric's comparisons
// (a table's family). When the scorer is swept, points are paired only
// with points that differ in the scorer alone, and labelled by it;
// otherwise every pair of points is compared.
func (s *Summary) Comparisons() []Comparison {
	keys := s.otherKeys() // the tuned key ([report] tune) neither groups nor labels
	scorerKey := ""
	for _, k := range keys {
		if shortKey(k) == "scorer" {
			scorerKey = k
		}
	}
	points := s.Points()
	use := s.chosenPoints()
	group := func(p *Point) string {
		if scorerKey == "" {
			return ""
		}
		var parts []string
		for _, k := range keys {
			if k != scorerKey {
				parts = append(parts, shortKey(k)+"="+fmtValue(p.Values[k]))
			}
		}
		return strings.Join(parts, " ")
	}
	label := func(p *Point) string {
		if scorerKey == "" {
			return s.tuneGroup(p.Values)
		}
		return fmtValue(p.Values[scorerKey])
	}
	var out []Comparison
	for _, m := range s.comparedMetrics() {
		var fam []Comparison
		for i, a := range points {
			for j := i + 1; j < len(points); j++ {
				b := points[j]
				if !use[i] || !use[j] || group(a) != group(b) {
					continue
				}
				xa, xb := pairBySeed(a, b, m)
				if len(xa) < 2 {
					continue
				}
				c := Comparison{Metric: m, Primary: m == s.Report.Primary, Group: group(a), A: label(a), B: label(b), I: i, J: j, N: len(xa)}
				c.MeanA, _ = MeanSD(xa)
				c.MeanB, _ = MeanSD(xb)
				c.T, c.DF, c.P = PairedT(xa, xb)
				c.PFlip = SignFlip(xa, xb)
				c.Diff, c.DiffLo, c.DiffHi = PairedDiff(xa, xb)
				d := differences(xa, xb)
				_, c.sd = MeanSD(d)
				c.BootLo, c.BootHi = BootstrapCI(d)
				c.Effect, c.PTOST = math.Abs(c.Diff), math.NaN()
				if c.Primary && s.Report.Margin > 0 {
					c.Margin, c.Effect = s.Report.Margin, s.Report.Margin
					c.PTOST = TOST(xa, xb, c.Margin)
				}
				fam = append(fam, c)
			}
		}
		ps, fs, es := make([]float64, len(fam)), make([]float64, len(fam)), make([]float64, len(fam))
		for k, c := range fam {
			ps[k], fs[k], es[k] = c.P, c.PFlip, c.PTOST
		}
		ph, fh, eh := Holm(ps), Holm(fs), Holm(es)
		m := 0 // the family's size for Holm: the comparisons with a p
		for _, p := range ps {
			if !math.IsNaN(p) {
				m++
			}
		}
		for k := range fam {
			c := &fam[k]
			c.PHolm, c.PFlipHolm, c.PTOSTHolm = ph[k], fh[k], eh[k]
			c.Power = PairedPower(c.N, c.sd, c.Effect, Alpha)
			c.PowerHolm = PairedPower(c.N, c.sd, c.Effect, Alpha/float64(max(m, 1)))
		}
		sort.SliceStable(fam, func(i, j int) bool { return fam[i].Group < fam[j].Group })
		out = append(out, fam...)
	}
	return out
}

// pairBySeed returns the values of metric m of the seeds both points ran,
// in seed order.
func pairBySeed(a, b *Point, m string) (xa, xb []float64) {
	of := func(p *Point) map[int64]float64 {
		v := map[int64]float64{}
		for _, f := range p.Runs {
			if x, ok := f.Metrics[m]; ok {
				v[f.Seed] = x
			}
		}
		return v
	}
	va, vb := of(a), of(b)
	var seeds []int64
	for s := range va {
		if _, ok := vb[s]; ok {
			seeds = append(seeds, s)
		}
	}
	slices.Sort(seeds)
	for _, s := range seeds {
		xa, xb = append(xa, va[s]), append(xb, vb[s])
	}
	return xa, xb
}

// values are the point's values of metric m (train_seconds too), one per
// run that has it.
func (p *Point) values(m string) []float64 {
	var xs []float64
	for _, f := range p.Runs {
		if m == "train_seconds" {
			xs = append(xs, f.TrainSeconds)
		} else if v, ok := f.Metrics[m]; ok {
			xs = append(xs, v)
		}
	}
	return xs
}

// fmtP writes a p-value: three significant digits, "< 0.001" below that.
func fmtP(p float64) string {
	switch {
	case math.IsNaN(p):
		return "—"
	case p < 0.001:
		return "< 0.001"
	}
	return strconv.FormatFloat(p, 'f', 3, 64)
}

// ciCell writes the bootstrap interval as "[lo, hi]" in the metric's format.
func ciCell(m string, xs []float64) string {
	lo, hi := BootstrapCI(xs)
	if math.IsNaN(lo) {
		return "—"
	}
	return "[" + fmtMetric(m, lo) + ", " + fmtMetric(m, hi) + "]"
}

// writeStatsMD appends to summary.md the intervals, the success counts
// and the pairwise comparisons.
func (s *Summary) writeStatsMD(b *strings.Builder) {
	if s.seedsVary() {
		b.WriteString("\n## 95% interval of the mean per sweep point\n\n" + ciNote + "\n\n")
		head := append([]string{"point", "seeds"}, s.Metrics...)
		mdRow(b, head)
		mdSep(b, len(head))
		for _, p := range s.Points() {
			row := []string{p.Label, strconv.Itoa(len(p.Runs))}
			for _, m := range s.Metrics {
				row = append(row, ciCell(m, p.values(m)))
			}
			mdRow(b, row)
		}
	}
	s.writeSuccessMD(b)
	cs := s.Comparisons()
	if len(cs) == 0 {
		return
	}
	fmt.Fprintf(b, "\n## Pairwise comparisons\n\n%s\n\n", comparisonNote(s.comparedMetrics(), s.Report.Primary, s.Report.Margin))
	tost := s.Report.Margin > 0
	head := []string{"metric"}
	grouped := cs[0].Group != ""
	if grouped {
		head = append(head, "where")
	}
	head = append(head, comparisonHead(tost)...)
	mdRow(b, head)
	mdSep(b, len(head))
	for _, c := range cs {
		row := []string{metricLabel(c)}
		if grouped {
			row = append(row, c.Group)
		}
		row = append(row, comparisonCells(c, tost)...)
		mdRow(b, row)
	}
}

// seedsVary reports whether some sweep point has two seeds or more: with
// one seed a point has no spread, and the summary and the report leave the
// intervals out rather than print a table of dashes.
func (s *Summary) seedsVary() bool {
	for _, p := range s.Points() {
		if len(p.Runs) > 1 {
			return true
		}
	}
	return false
}

// pointsTitle and pointsNote head the table of sweep points: the mean ±
// sd across seeds, or with one seed per point that run's value (no sd).
func (s *Summary) pointsTitle() string {
	if s.seedsVary() {
		return "Mean ± sd per sweep point"
	}
	return "Per sweep point"
}

func (s *Summary) pointsNote() string {
	if s.seedsVary() {
		return "sd is the sample standard deviation across seeds (n − 1)."
	}
	return "One seed per sweep point: each value is that run's, with no spread across seeds to show (no sd, no interval, no tests); run more seeds for those."
}

// ciNote says how the intervals are made.
const ciNote = "Percentile bootstrap over the seeds (10000 resamples of the seeds' values, the 2.5th and 97.5th percentiles of their means): inside the metric's range; with few seeds, narrow — read it with the runs' values."

// comparisonNote says how the comparisons are made.
func comparisonNote(metrics []string, primary string, margin float64) string {
	effect := "the observed |a − b|"
	if margin > 0 {
		effect = "the margin on " + primary + " ([report] margin) and the observed |a − b| on the others"
	}
	note := "Paired by seed (each scorer sees the same data per seed): the paired t-test (two-sided, df = seeds − 1; scipy's ttest_rel) and the sign-flip permutation test (exact over the 2ⁿ sign assignments; its smallest p is 2/2ⁿ: 0.25 with 3 seeds). Each p is Holm-corrected across the metric's comparisons; * marks a Holm-adjusted paired-t p < 0.05. Metrics: " + strings.Join(metrics, ", ") + "."
	if primary != "" {
		note += " The claim's primary metric ([report] primary) is " + primary + "; the others are secondary."
	}
	note += " a − b is the mean paired difference with its 95% t-interval (it excludes 0 exactly when p < 0.05), and beside it the 95% percentile bootstrap interval of the differences (10000 resamples; narrower than the t-interval with few seeds). Power is the paired t-test's chance of p < 0.05 if the true difference were " + effect + " (noncentral t, the differences' sd as the true sd); power Holm is the same at 0.05/m, m the metric's comparisons: the level Holm's first step applies, and a lower bound on the power after Holm's correction."
	if margin > 0 {
		note += " TOST p (two one-sided paired t-tests, Holm-corrected like p) tests that |a − b| < " + strconv.FormatFloat(margin, 'g', -1, 64) + " on " + primary + " ([report] margin); ≈ marks a Holm-adjusted TOST p < 0.05: equivalent within the margin. A non-significant p without ≈ is no evidence of equivalence."
	}
	return note
}

func metricLabel(c Comparison) string {
	if c.Primary {
		return c.Metric + " (primary)"
	}
	return c.Metric
}

// comparisonHead heads a comparison's cells after the metric and group;
// tost adds the equivalence test's.
func comparisonHead(tost bool) []string {
	h := []string{"a", "b", "seeds", "mean a", "mean b", "t", "df", "p", "p Holm", "p sign-flip", "p sign-flip Holm", "",
		"a − b [95% t]", "a − b bootstrap", "power", "power Holm"}
	if tost {
		h = append(h, "TOST p", "TOST p Holm", "")
	}
	return h
}

// comparisonCells are a comparison's cells after the metric and group.
func comparisonCells(c Comparison, tost bool) []string {
	star := ""
	if c.Significant() {
		star = "*"
	}
	interval := func(lo, hi float64) string {
		return "[" + fmtMetric(c.Metric, lo) + ", " + fmtMetric(c.Metric, hi) + "]"
	}
	cells := []string{c.A, c.B, strconv.Itoa(c.N), fmtMetric(c.Metric, c.MeanA), fmtMetric(c.Metric, c.MeanB),
		fmtStat(c.T), fmtStat(c.DF), fmtP(c.P), fmtP(c.PHolm), fmtP(c.PFlip), fmtP(c.PFlipHolm), star,
		fmtMetric(c.Metric, c.Diff) + " " + interval(c.DiffLo, c.DiffHi), interval(c.BootLo, c.BootHi), fmtP(c.Power), fmtP(c.PowerHolm)}
	if tost {
		eq := ""
		if c.Equivalent() {
			eq = "≈"
		}
		cells = append(cells, fmtP(c.PTOST), fmtP(c.PTOSTHolm), eq)
	}
	return cells
}

// writePointsCSV writes points.csv: one row per sweep point with, for
// each metric, the mean, the sample sd and the 95% bootstrap interval's
// ends (BootstrapCI).
func (s *Summary) writePointsCSV(path string) error {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	head := append([]string{"point", "seeds"}, s.Keys...)
	for _, m := range s.Metrics {
		head = append(head, m+"_mean", m+"_sd", m+"_ci_low", m+"_ci_high")
	}
	w.Write(head)
	for _, p := range s.Points() {
		row := []string{p.Label, strconv.Itoa(len(p.Runs))}
		for _, k := range s.Keys {
			row = append(row, fmtValue(p.Values[k]))
		}
		for _, m := range s.Metrics {
			xs := p.values(m)
			mean, sd := MeanSD(xs)
			lo, hi := BootstrapCI(xs)
			for _, v := range []float64{mean, sd, lo, hi} {
				row = append(row, csvFloat(v))
			}
		}
		w.Write(row)
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	return writeFile(path, buf.String())
}

// writeComparisonsCSV writes comparisons.csv: one row per comparison.
func (s *Summary) writeComparisonsCSV(path string) error {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write([]string{"metric", "primary", "where", "a", "b", "seeds", "mean_a", "mean_b", "t", "df", "p", "p_holm", "p_signflip", "p_signflip_holm", "significant",
		"diff", "diff_ci_low", "diff_ci_high", "diff_boot_low", "diff_boot_high", "power_effect", "power", "power_holm", "margin", "p_tost", "p_tost_holm", "equivalent"})
	for _, c := range s.Comparisons() {
		margin, equivalent := "", ""
		if c.Margin > 0 {
			margin, equivalent = csvFloat(c.Margin), strconv.FormatBool(c.Equivalent())
		}
		w.Write([]string{c.Metric, strconv.FormatBool(c.Primary), c.Group, c.A, c.B, strconv.Itoa(c.N), csvFloat(c.MeanA), csvFloat(c.MeanB),
			csvFloat(c.T), csvFloat(c.DF), csvFloat(c.P), csvFloat(c.PHolm), csvFloat(c.PFlip), csvFloat(c.PFlipHolm), strconv.FormatBool(c.Significant()),
			csvFloat(c.Diff), csvFloat(c.DiffLo), csvFloat(c.DiffHi), csvFloat(c.BootLo), csvFloat(c.BootHi), csvFloat(c.Effect), csvFloat(c.Power), csvFloat(c.PowerHolm),
			margin, csvFloat(c.PTOST), csvFloat(c.PTOSTHolm), equivalent})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	return writeFile(path, buf.String())
}

// csvFloat writes a float in full; NaN as an empty cell.
func csvFloat(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// fmtStat writes a test statistic with two decimals, NaN as "—".
func fmtStat(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}
