package metrics

import (
	"math"
	"sort"
)

// ArgmaxLinks reads an alignment off attention weights the way Luong et al.
// (2015, "Effective Approaches to Attention-based Neural Machine
// Translation", section "Alignment Quality") did: for each target row t of
// attn (attn[t][s] is the weight target t gives source s) it links t to the
// source column of largest weight. Ties go to the lowest source index; NaN entries are
// skipped, and a row that is empty or all NaN gets no link. Links come in
// target order, one per row.
func ArgmaxLinks(attn [][]float64) []Link {
	links := make([]Link, 0, len(attn))
	for t, row := range attn {
		best := -1
		for s, w := range row {
			if math.IsNaN(w) {
				continue
			}
			if best < 0 || w > row[best] {
				best = s
			}
		}
		if best >= 0 {
			links = append(links, Link{Src: best, Tgt: t})
		}
	}
	return links
}

// AttentionEntropy is the mean over target rows of the entropy
// −Σ_s p_s log p_s of each row's weights, in nats. Entries <= 0 (and NaN)
// contribute nothing, which is the convention 0·log 0 = 0; rows are used as
// given, not renormalised. A uniform row over n sources has entropy ln n, a
// one-hot row 0. With no rows the mean is NaN, as gonum's stat.Mean.
func AttentionEntropy(attn [][]float64) float64 {
	if len(attn) == 0 {
		return math.NaN()
	}
	sum := 0.0
	for _, row := range attn {
		for _, p := range row {
			if p > 0 {
				sum -= p * math.Log(p)
			}
		}
	}
	return sum / float64(len(attn))
}

// SupportMass is the share of a row's weight AttentionSupport counts keys
// up to.
const SupportMass = 0.9

// AttentionSupport is the mean over target rows of each row's support: the
// fewest source positions whose weights hold at least SupportMass (90%) of
// the row's total weight (its positive, non-NaN entries; rows are not
// renormalised, and a relative 1e-9 of slack absorbs rounding). A one-hot
// row has support 1, a uniform row over n sources ⌈0.9·n⌉, and a row with
// no positive weight 0. With no rows the mean is NaN, as AttentionEntropy's.
func AttentionSupport(attn [][]float64) float64 {
	if len(attn) == 0 {
		return math.NaN()
	}
	sum := 0
	for _, row := range attn {
		w := make([]float64, 0, len(row))
		total := 0.0
		for _, p := range row {
			if p > 0 {
				w = append(w, p)
				total += p
			}
		}
		sort.Sort(sort.Reverse(sort.Float64Slice(w)))
		held := 0.0
		for k, p := range w {
			held += p
			if held >= SupportMass*total*(1-1e-9) {
				sum += k + 1
				break
			}
		}
	}
	return float64(sum) / float64(len(attn))
}

// AttentionTop1 is the mean over target rows of each row's largest weight
// (NaN entries skipped; 0 for a row with none): 1 for one-hot rows, 1/n
// for uniform rows over n sources. With no rows the mean is NaN.
func AttentionTop1(attn [][]float64) float64 {
	if len(attn) == 0 {
		return math.NaN()
	}
	sum := 0.0
	for _, row := range attn {
		best := 0.0
		for _, p := range row {
			if p > best {
				best = p
			}
		}
		sum += best
	}
	return sum / float64(len(attn))
}
