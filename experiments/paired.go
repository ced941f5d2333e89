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
	d := differences(a, b)
	n := len(d)
	if n < 2 {
		return math.NaN(), math.NaN(), math.NaN()
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
	d := differences(a, b)
	n := len(d)
	if n < 1 {
		return math.NaN()
	}
	obs := 0.0
	for _, x := range d {
		obs += x
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

// differences are a_i − b_i, or nil when the lengths differ.
func differences(a, b []float64) []float64 {
	if len(b) != len(a) {
		return nil
	}
	d := make([]float64, len(a))
	for i := range d {
		d[i] = a[i] - b[i]
	}
	return d
}

// PairedDiff is the mean of the paired differences d_i = a_i − b_i with
// its 95% t-interval (CI95 of the differences), d̄ ± t_{0.975, n−1}·s_d/√n:
// the interval PairedT's test inverts, so it excludes 0 exactly when
// PairedT's p < 0.05. Fewer than two pairs or unequal lengths give NaN.
func PairedDiff(a, b []float64) (mean, lo, hi float64) {
	d := differences(a, b)
	if len(d) < 2 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	mean, _ = MeanSD(d)
	lo, hi = CI95(d)
	return mean, lo, hi
}

// TOST is the paired equivalence test (two one-sided t-tests, Schuirmann
// 1987) of |μ_d| < margin, μ_d the true mean of d_i = a_i − b_i:
//
//	t_low  = (d̄ + margin)/(s_d/√n),  p_low  = 1 − F_df(t_low)   (H0: μ_d ≤ −margin)
//	t_high = (d̄ − margin)/(s_d/√n),  p_high = F_df(t_high)      (H0: μ_d ≥ +margin)
//	p = max(p_low, p_high),  df = n − 1
//
// p < α says the difference lies within ±margin at level α (equivalently,
// the 1 − 2α t-interval of the difference lies inside (−margin, margin)).
// It is statsmodels' ttost_paired(a, b, −margin, margin). With every
// difference equal, p is 0 when |d̄| < margin and 1 otherwise; fewer than
// two pairs, unequal lengths or a margin ≤ 0 give NaN.
func TOST(a, b []float64, margin float64) float64 {
	d := differences(a, b)
	if len(d) < 2 || !(margin > 0) {
		return math.NaN()
	}
	mean, sd := MeanSD(d)
	if sd == 0 {
		if math.Abs(mean) < margin {
			return 0
		}
		return 1
	}
	se := sd / math.Sqrt(float64(len(d)))
	dist := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(len(d) - 1)}
	return max(dist.Survival((mean+margin)/se), dist.CDF((mean-margin)/se))
}

// powerNodes is the number of midpoint-rule nodes of PairedPower's integral.
const powerNodes = 4000

// PairedPower is the power of the two-sided paired t-test at level
// `level` with n pairs to detect a true mean difference `effect` when the
// differences' true sd is sd: the chance that |T| > c, c = t_{1−level/2, ν},
// T = (Z + λ)/√(V/ν) noncentral t, λ = effect·√n/sd, ν = n − 1,
// Z ~ N(0, 1), V ~ χ²_ν. Conditioning on V,
//
//	power = E_V[ Φ(λ − c·√(V/ν)) + Φ(−λ − c·√(V/ν)) ]
//
// integrated over V's quantiles (the midpoint rule on (0, 1), 4000 nodes).
// effect = 0 gives the level itself. Fewer than two pairs, a level
// outside (0, 1), or sd 0 or NaN give NaN.
func PairedPower(n int, sd, effect, level float64) float64 {
	if n < 2 || !(sd > 0) || math.IsInf(sd, 0) || !(level > 0 && level < 1) || math.IsNaN(effect) {
		return math.NaN()
	}
	nu := float64(n - 1)
	c := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: nu}.Quantile(1 - level/2)
	lambda := math.Abs(effect) * math.Sqrt(float64(n)) / sd
	chi := distuv.ChiSquared{K: nu}
	norm := distuv.UnitNormal
	sum := 0.0
	for k := range powerNodes {
		v := chi.Quantile((float64(k) + 0.5) / powerNodes)
		x := c * math.Sqrt(v/nu)
		sum += norm.CDF(lambda-x) + norm.CDF(-lambda-x)
	}
	return sum / powerNodes
}
