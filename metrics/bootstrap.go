package metrics

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// PairedBootstrap is the result of PairedBootstrapBLEU.
type PairedBootstrap struct {
	BLEUA, BLEUB float64 // the two systems' corpus BLEU on the whole test set
	Delta        float64 // BLEUA − BLEUB
	// Lo and Hi are the 2.5th and 97.5th percentiles of the resampled
	// differences (nearest rank): a 95% interval of Delta.
	Lo, Hi float64
	// P is the share of resamples in which the system that scored lower
	// on the whole set scores at least as high as the other (Koehn 2004's
	// test, one-sided: "A is better" holds at level P); 1 when the two
	// scores are equal.
	P       float64
	Samples int
}

// PairedBootstrapBLEU compares two systems' outputs on the same test
// sentences by paired bootstrap resampling (Koehn 2004, "Statistical
// Significance Tests for Machine Translation Evaluation", EMNLP, §4): it
// draws samples test sets of the same size from the sentences with
// replacement (one draw of indices for both systems), and computes corpus
// BLEU of each system on each, from the sentences' clipped n-gram matches,
// totals and lengths summed as CorpusBLEU sums them. rng draws the indices.
func PairedBootstrapBLEU(hypsA, hypsB [][]string, refs [][][]string, opt BLEUOptions, samples int, rng *rand.Rand) (PairedBootstrap, error) {
	if len(hypsA) != len(hypsB) {
		return PairedBootstrap{}, fmt.Errorf("metrics: paired bootstrap: %d hypotheses of A but %d of B", len(hypsA), len(hypsB))
	}
	if len(hypsA) == 0 {
		return PairedBootstrap{}, fmt.Errorf("metrics: paired bootstrap: no sentences")
	}
	if samples < 1 {
		return PairedBootstrap{}, fmt.Errorf("metrics: paired bootstrap: samples must be >= 1, got %d", samples)
	}
	a, err := sentenceStats(hypsA, refs, opt)
	if err != nil {
		return PairedBootstrap{}, err
	}
	b, err := sentenceStats(hypsB, refs, opt)
	if err != nil {
		return PairedBootstrap{}, err
	}
	all := make([]int, len(hypsA))
	for i := range all {
		all[i] = i
	}
	r := PairedBootstrap{BLEUA: sumBLEU(a, all, opt), BLEUB: sumBLEU(b, all, opt), Samples: samples}
	r.Delta = r.BLEUA - r.BLEUB
	deltas := make([]float64, samples)
	idx := make([]int, len(all))
	worseWins := 0
	for s := range deltas {
		for i := range idx {
			idx[i] = rng.IntN(len(all))
		}
		sa, sb := sumBLEU(a, idx, opt), sumBLEU(b, idx, opt)
		deltas[s] = sa - sb
		if r.Delta > 0 && sb >= sa || r.Delta < 0 && sa >= sb {
			worseWins++
		}
	}
	r.P = float64(worseWins) / float64(samples)
	if r.Delta == 0 {
		r.P = 1
	}
	slices.Sort(deltas)
	rank := func(q float64) float64 { // nearest rank
		k := int(q*float64(samples)+0.5) - 1
		return deltas[min(max(k, 0), samples-1)]
	}
	r.Lo, r.Hi = rank(0.025), rank(0.975)
	return r, nil
}

// sentenceStats are each sentence's BLEU statistics.
func sentenceStats(hyps [][]string, refs [][][]string, opt BLEUOptions) ([]BLEUScore, error) {
	if len(hyps) != len(refs) {
		return nil, fmt.Errorf("metrics: paired bootstrap: %d hypotheses but %d reference sets", len(hyps), len(refs))
	}
	out := make([]BLEUScore, len(hyps))
	for i, h := range hyps {
		s, err := SentenceBLEU(h, refs[i], opt)
		if err != nil {
			return nil, fmt.Errorf("metrics: paired bootstrap: sentence %d: %w", i, err)
		}
		out[i] = s
	}
	return out, nil
}

// sumBLEU is the corpus BLEU of the sentences idx (repeats counted).
func sumBLEU(st []BLEUScore, idx []int, opt BLEUOptions) float64 {
	n := len(st[0].Matches)
	matches, totals := make([]int, n), make([]int, n)
	hyp, ref := 0, 0
	for _, i := range idx {
		for k := range n {
			matches[k] += st[i].Matches[k]
			totals[k] += st[i].Totals[k]
		}
		hyp += st[i].HypLen
		ref += st[i].RefLen
	}
	return bleuFromCounts(matches, totals, hyp, ref, opt).BLEU
}
