package experiments

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Statistics over seeds. Every scorer of a sweep sees the same data, batches
// and initial draws per seed, so two sweep points are compared seed by
// seed (paired), not as independent samples.

// PairedT is the paired t-test of equal means (two-sided) over the
// differences d_i = a_i − b_i of n pairs:
//
//	t = d̄ / (s_d/√n),  df = n − 1,  p = 2·(1 − F_df(|t|))
//
// It is scipy.stats.ttest_rel(a, b). With every difference equal it gives
// p = 1 when they are 0 and p = 0 (t = ±Inf) otherwise; fewer than two
// pairs or unequal lengths give NaN throughout.
func PairedT(a, b []float64) (t, df, p float64) {
	n := len(a)
	if n < 2 || len(b) != n {
		return math.NaN(), math.NaN(), math.NaN()
	}
	d := make([]float64, n)
	for i := range d {
		d[i] = a[i] - b[i]
	}
	mean, sd := stat.MeanStdDev(d, nil)
	df = float64(n - 1)
	if sd == 0 || math.IsNaN(sd) {
		if mean == 0 {
			return 0, df, 1
		}
		return math.Copysign(math.Inf(1), mean), df, 0
	}
	t = mean / (sd / math.Sqrt(float64(n)))
	p = 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Survival(math.Abs(t))
	return t, df, p
}

// exactFlips is the most pairs SignFlip enumerates exactly (2^n sign
// assignments); above it draws signFlipSamples of them.
const exactFlips, signFlipSamples = 20, 100000

// SignFlip is the paired sign-flip permutation test (two-sided): under the
// null hypothesis each difference d_i = a_i − b_i is as likely negative as
// positive, so p is the share of the 2^n sign assignments whose |Σ ±d_i|
// reaches the observed |Σ d_i|. It enumerates them all for n ≤ 20; above,
// it draws 100000 at random (a fixed generator) and returns (k+1)/(N+1).
// The smallest p it can give is 2/2^n: 0.25 for 3 seeds, 0.0078 for 8.
// Fewer than one pair or unequal lengths give NaN.
func SignFlip(a, b []float64) float64 {
	n := len(a)
	if n < 1 || len(b) != n {
		return math.NaN()
	}
	d := make([]float64, n)
	obs := 0.0
	for i := range d {
		d[i] = a[i] - b[i]
		obs += d[i]
	}
	obs = math.Abs(obs)
	tol := 1e-12 * (1 + obs) // sums equal up to rounding count as reaching it
	reach := func(signs func(i int) bool) bool {
		s := 0.0
		for i, x := range d {
			if signs(i) {
				s -= x
			} else {
				s += x
			}
		}
		return math.Abs(s) >= obs-tol
	}
	if n <= exactFlips {
		k := 0
		for mask := 0; mask < 1<<n; mask++ {
			if reach(func(i int) bool { return mask>>i&1 == 1 }) {
				k++
			}
		}
		return float64(k) / float64(int(1)<<n)
	}
	rng := rand.New(rand.NewPCG(0x5197f11b, uint64(n)))
	k := 0
	for range signFlipSamples {
		if reach(func(int) bool { return rng.IntN(2) == 1 }) {
			k++
		}
	}
	return float64(k+1) / float64(signFlipSamples+1)
}

// Holm adjusts p-values for a family of m tests (Holm 1979, step-down):
// sorted ascending, p_(j) becomes max over i ≤ j of min(1, (m − i + 1)·p_(i)).
// A test is significant at α when its adjusted p < α; the family-wise
// error rate is then at most α. NaN p-values are left out of m and stay NaN.
func Holm(ps []float64) []float64 {
	out := make([]float64, len(ps))
	var idx []int
	for i, p := range ps {
		out[i] = math.NaN()
		if !math.IsNaN(p) {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return ps[idx[a]] < ps[idx[b]] })
	m, run := len(idx), 0.0
	for j, i := range idx {
		run = max(run, min(1, float64(m-j)*ps[i]))
		out[i] = run
	}
	return out
}

// bootstrapSamples is the number of resamples of BootstrapCI.
const bootstrapSamples = 10000

// BootstrapCI is the 95% percentile bootstrap interval of the mean of xs:
// the 2.5th and 97.5th percentiles (gonum's empirical quantile) of the
// means of 10000 resamples of xs with replacement, drawn from a fixed
// generator. Every resampled mean lies between min(xs) and max(xs), so the
// interval stays inside the metric's range. With few seeds it is narrow
// (3 values have 10 distinct resamples): read it with the seeds' values.
// It is (NaN, NaN) for fewer than two values.
func BootstrapCI(xs []float64) (lo, hi float64) {
	n := len(xs)
	if n < 2 {
		return math.NaN(), math.NaN()
	}
	rng := rand.New(rand.NewPCG(0xb0075, uint64(n)))
	means := make([]float64, bootstrapSamples)
	for s := range means {
		sum := 0.0
		for range n {
			sum += xs[rng.IntN(n)]
		}
		means[s] = sum / float64(n)
	}
	slices.Sort(means)
	return stat.Quantile(0.025, stat.Empirical, means, nil), stat.Quantile(0.975, stat.Empirical, means, nil)
}
