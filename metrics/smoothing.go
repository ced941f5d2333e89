package metrics

import (
	"fmt"
	"slices"
	"strings"
)

// Smoothing says how BLEU treats an n-gram order whose clipped match count
// m_n is 0 (t_n is that order's count of hypothesis n-grams). The methods are
// sacrebleu's, which follow Chen & Cherry (2014), "A Systematic Comparison
// of Smoothing Techniques for Sentence-Level BLEU". Under every method BLEU
// is 0 when no unigram matches.
type Smoothing int

const (
	// SmoothNone leaves p_n = 0, so BLEU is 0 (Papineni et al. 2002).
	SmoothNone Smoothing = iota
	// SmoothFloor sets a zero-match p_n to ε/t_n (Chen & Cherry method 1;
	// ε = SmoothValue, default 0.1).
	SmoothFloor
	// SmoothAddK adds k to both m_n and t_n for every n >= 2, matched or
	// not (Chen & Cherry method 2, after Lin & Och 2004; k = SmoothValue,
	// default 1). Precisions report the smoothed ratio.
	SmoothAddK
	// SmoothExp sets the i-th zero-match order's p_n to 1/(2^i · t_n), the
	// NIST mteval-v13a.pl smoothing (Chen & Cherry method 3) and
	// sacrebleu's default.
	SmoothExp
)

var smoothingNames = [...]string{"none", "floor", "add-k", "exp"}

// String returns the method's name as sacrebleu's --smooth-method spells it.
func (s Smoothing) String() string {
	if s < 0 || int(s) >= len(smoothingNames) {
		return fmt.Sprintf("Smoothing(%d)", int(s))
	}
	return smoothingNames[s]
}

// ParseSmoothing returns the method named name: none, floor, add-k or exp.
func ParseSmoothing(name string) (Smoothing, error) {
	for i, n := range smoothingNames {
		if n == name {
			return Smoothing(i), nil
		}
	}
	have := slices.Sorted(slices.Values(smoothingNames[:]))
	return 0, fmt.Errorf("metrics: unknown smoothing %q (have: %s)", name, strings.Join(have, ", "))
}

// defaultValue is sacrebleu's default SmoothValue for s.
func (s Smoothing) defaultValue() float64 {
	switch s {
	case SmoothFloor:
		return 0.1
	case SmoothAddK:
		return 1
	}
	return 0
}
