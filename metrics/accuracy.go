package metrics

import (
	"fmt"
	"slices"
)

// TokenAccuracy is the fraction of reference tokens that the hypothesis
// reproduces at the same position:
//
//	Σ_i #{t < min(|h_i|, |r_i|) : h_i[t] = r_i[t]}  /  Σ_i |r_i|
//
// A hypothesis shorter than its reference counts the missing positions as
// wrong; tokens a hypothesis emits past the end of its reference are not
// counted at all (the denominator is reference tokens, so the score is in
// [0, 1]); ExactMatch is the measure that penalises them. It is an error if
// the slices differ in length or if the references hold no token at all.
func TokenAccuracy(hyps, refs [][]string) (float64, error) {
	if err := checkPairs(hyps, refs); err != nil {
		return 0, err
	}
	correct, total := 0, 0
	for i, ref := range refs {
		hyp := hyps[i]
		for t, tok := range ref {
			if t < len(hyp) && hyp[t] == tok {
				correct++
			}
		}
		total += len(ref)
	}
	if total == 0 {
		return 0, fmt.Errorf("metrics: token accuracy: references hold no tokens")
	}
	return float64(correct) / float64(total), nil
}

// ExactMatch is the fraction of hypotheses identical to their reference:
// same length and the same token at every position. It is an error if the
// slices differ in length or are empty.
func ExactMatch(hyps, refs [][]string) (float64, error) {
	if err := checkPairs(hyps, refs); err != nil {
		return 0, err
	}
	same := 0
	for i, ref := range refs {
		if slices.Equal(hyps[i], ref) {
			same++
		}
	}
	return float64(same) / float64(len(refs)), nil
}

func checkPairs(hyps, refs [][]string) error {
	if len(hyps) != len(refs) {
		return fmt.Errorf("metrics: %d hypotheses but %d references", len(hyps), len(refs))
	}
	if len(refs) == 0 {
		return fmt.Errorf("metrics: no sentences")
	}
	return nil
}
