package metrics

import "math"

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
