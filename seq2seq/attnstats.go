package seq2seq

import (
	"math"

	"github.com/attnzoo/attnzoo/internal/gx"
)

// AttnStats accumulates, over greedy decoding (GreedyStats), the spread of
// what attention reads: the keys (the encoder annotations k_{b,i} over the
// unmasked positions i < len_b), the queries q_t (the state the scorer
// scores with at each step of each live output) and the scores s_i of
// each step over its unmasked keys. For n values x_j, all standard
// deviations are the population ones,
//
//	sd = √( (1/n) Σ_j (x_j − x̄)² )
//
// (the spread of the values present, as Vaswani et al.'s var(qᵀk) = d is a
// population variance; it is defined for n = 1, where it is 0). Then
//
//	KeyStd     = sd of every component of every unmasked key, pooled
//	QueryStd   = sd of every component of every query, pooled
//	LogitStd   = (1/R) Σ_r sd_i(s_{r,i})
//	LogitRange = (1/R) Σ_r (max_i s_{r,i} − min_i s_{r,i})
//
// over the R score rows r: one per decoding step of each live output, and
// for a scorer with h heads, one per head of it. Keys and queries are
// pooled exactly (Chan et al.'s merge of per-row mean and squared
// deviations, no Σx² − (Σx)² cancellation). Adding allocates nothing.
type AttnStats struct {
	keys, queries        moments
	logitStd, logitRange float64 // sums over score rows
	rows                 int
}

// moments are a pooled count, mean and sum of squared deviations M2.
type moments struct{ n, mean, m2 float64 }

// merge pools a group of n values with mean mu and M2 m2 into m:
// δ = μ_b − μ_a, μ = μ_a + δ n_b/n, M2 = M2_a + M2_b + δ² n_a n_b/n.
func (m *moments) merge(n, mu, m2 float64) {
	if n == 0 {
		return
	}
	tot := m.n + n
	d := mu - m.mean
	m.mean += d * n / tot
	m.m2 += m2 + d*d*m.n*n/tot
	m.n = tot
}

func (m moments) std() float64 {
	if m.n == 0 {
		return math.NaN()
	}
	return math.Sqrt(m.m2 / m.n)
}

// rowMoments returns the mean and M2 of x (two passes).
func rowMoments[T float32 | float64](x []T) (mu, m2 float64) {
	for _, v := range x {
		mu += float64(v)
	}
	mu /= float64(len(x))
	for _, v := range x {
		d := float64(v) - mu
		m2 += d * d
	}
	return mu, m2
}

// addVec merges entries [off, off+n) of v.
func (m *moments) addVec(v gx.Vec, off, n int) {
	if n <= 0 {
		return
	}
	var mu, m2 float64
	if v.F64 != nil {
		mu, m2 = rowMoments(v.F64[off : off+n])
	} else {
		mu, m2 = rowMoments(v.F32[off : off+n])
	}
	m.merge(float64(n), mu, m2)
}

// addKeys adds the keys v [B, S, D] (row-major), key i of row b when
// i < srcLen[b].
func (a *AttnStats) addKeys(v gx.Vec, B, S, D int, srcLen []int) {
	for b := 0; b < B; b++ {
		a.keys.addVec(v, b*S*D, srcLen[b]*D) // the unmasked keys of a row are contiguous
	}
}

// addQuery adds row r of the queries v [R, D].
func (a *AttnStats) addQuery(v gx.Vec, r, D int) { a.queries.addVec(v, r*D, D) }

// addScores adds the score rows of row r of v [R·h, S] (row r·h+k is head
// k), each over its first n keys.
func (a *AttnStats) addScores(v gx.Vec, r, h, S, n int) {
	if n <= 0 {
		return
	}
	for k := 0; k < h; k++ {
		off := (r*h + k) * S
		var sd, rg float64
		if v.F64 != nil {
			sd, rg = spread(v.F64[off : off+n])
		} else {
			sd, rg = spread(v.F32[off : off+n])
		}
		a.logitStd += sd
		a.logitRange += rg
		a.rows++
	}
}

// spread returns the population sd and max − min of x (len(x) > 0).
func spread[T float32 | float64](x []T) (sd, rg float64) {
	_, m2 := rowMoments(x)
	lo, hi := x[0], x[0]
	for _, v := range x {
		lo, hi = min(lo, v), max(hi, v)
	}
	return math.Sqrt(m2 / float64(len(x))), float64(hi) - float64(lo)
}

// KeyStd is the pooled sd of the keys' components (NaN before any key).
func (a *AttnStats) KeyStd() float64 { return a.keys.std() }

// QueryStd is the pooled sd of the queries' components (NaN before any).
func (a *AttnStats) QueryStd() float64 { return a.queries.std() }

// LogitStd is the mean over score rows of the scores' sd over the
// unmasked keys (NaN before any row).
func (a *AttnStats) LogitStd() float64 { return a.mean(a.logitStd) }

// LogitRange is the mean over score rows of max − min of the scores over
// the unmasked keys (NaN before any row).
func (a *AttnStats) LogitRange() float64 { return a.mean(a.logitRange) }

// Rows is the number of score rows added.
func (a *AttnStats) Rows() int { return a.rows }

func (a *AttnStats) mean(sum float64) float64 {
	if a.rows == 0 {
		return math.NaN()
	}
	return sum / float64(a.rows)
}
