package metrics

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
)

// DefaultMaxOrder is the largest n-gram order of standard BLEU-4.
const DefaultMaxOrder = 4

// BLEUOptions configures CorpusBLEU. The zero value is plain BLEU-4 with no
// smoothing, as in Papineni et al. (2002).
type BLEUOptions struct {
	// MaxOrder is N, the largest n-gram order; the geometric mean takes
	// orders 1..N with uniform weights 1/N. 0 means DefaultMaxOrder, so
	// captioning's BLEU-1..BLEU-3 are MaxOrder 1..3.
	MaxOrder int
	// Smooth treats orders with no matching n-gram; see Smoothing.
	Smooth Smoothing
	// SmoothValue is the floor for SmoothFloor and k for SmoothAddK;
	// 0 means sacrebleu's defaults (0.1 and 1, from Chen & Cherry 2014).
	// The other methods ignore it.
	SmoothValue float64
	// EffectiveOrder, as sacrebleu's effective_order, drops from the mean
	// the orders for which the hypotheses hold no n-gram at all (every
	// hypothesis shorter than n), instead of scoring 0. Orders that have
	// n-grams but no match still count. Useful for sentence BLEU.
	EffectiveOrder bool
	// Lowercase, as sacreBLEU's -lc (lowercase=True), compares lowercased
	// text (Lower: Python's str.lower): CorpusBLEUText lowercases each line
	// before tokenizing it, CorpusBLEU each token. Its signature says
	// case:lc.
	Lowercase bool
}

// BLEUScore is a corpus BLEU result, with the statistics behind it.
type BLEUScore struct {
	// BLEU is BP · exp(Σ_n log p_n / N) · 100, on sacrebleu's 0–100 scale.
	BLEU float64
	// Precisions are the modified n-gram precisions p_1..p_N in percent,
	// after smoothing. All are 0 when no unigram matches (as sacrebleu).
	Precisions []float64
	// BP is the brevity penalty: 1 if HypLen >= RefLen, else
	// exp(1 − RefLen/HypLen), and 0 if HypLen is 0.
	BP float64
	// Ratio is HypLen/RefLen (0 when RefLen is 0).
	Ratio float64
	// HypLen is the number of hypothesis tokens; RefLen sums, per sentence,
	// the length of the reference closest in length to the hypothesis
	// (ties go to the shorter one).
	HypLen, RefLen int
	// Matches[n-1] is the clipped count of hypothesis n-grams found in the
	// references and Totals[n-1] the count of hypothesis n-grams, summed
	// over the corpus, before any smoothing.
	Matches, Totals []int
}

// String formats s as sacrebleu prints a corpus score, e.g.
//
//	BLEU = 48.53 82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)
func (s BLEUScore) String() string {
	p := make([]string, len(s.Precisions))
	for i, v := range s.Precisions {
		p[i] = fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("BLEU = %.2f %s (BP = %.3f ratio = %.3f hyp_len = %d ref_len = %d)",
		s.BLEU, strings.Join(p, "/"), s.BP, s.Ratio, s.HypLen, s.RefLen)
}

// CorpusBLEU computes corpus-level BLEU (Papineni et al. 2002) as sacrebleu
// does: refs[i] holds any number (at least one) of references for hyps[i];
// each hypothesis n-gram count is clipped to its largest count in any one
// reference of its sentence, and clipped matches, n-gram totals and lengths
// are summed over the corpus before the precisions and the brevity penalty
// are taken (micro-average, not a mean of sentence scores).
//
// Tokens are compared exactly (lowercased first with opt.Lowercase). It is an
// error if the slices differ in length or are empty, or if a sentence has no
// reference.
func CorpusBLEU(hyps [][]string, refs [][][]string, opt BLEUOptions) (BLEUScore, error) {
	n := opt.MaxOrder
	if n == 0 {
		n = DefaultMaxOrder
	}
	if n < 0 {
		return BLEUScore{}, fmt.Errorf("metrics: bleu: max order must be >= 1, got %d", opt.MaxOrder)
	}
	if opt.SmoothValue < 0 || math.IsNaN(opt.SmoothValue) {
		return BLEUScore{}, fmt.Errorf("metrics: bleu: smoothing value must be >= 0, got %v", opt.SmoothValue)
	}
	if opt.Smooth < SmoothNone || opt.Smooth > SmoothExp {
		return BLEUScore{}, fmt.Errorf("metrics: bleu: unknown smoothing %d", int(opt.Smooth))
	}
	if len(hyps) != len(refs) {
		return BLEUScore{}, fmt.Errorf("metrics: bleu: %d hypotheses but %d reference sets", len(hyps), len(refs))
	}
	if len(hyps) == 0 {
		return BLEUScore{}, fmt.Errorf("metrics: bleu: no sentences")
	}
	var (
		c              = ngramCounter{ids: map[string]uint32{}}
		matches        = make([]int, n)
		totals         = make([]int, n)
		hypLen, refLen int
	)
	lower := func(toks []string) []string { return toks }
	if opt.Lowercase {
		lower = func(toks []string) []string {
			out := make([]string, len(toks))
			for i, t := range toks {
				out[i] = Lower(t)
			}
			return out
		}
	}
	for i, hyp := range hyps {
		if len(refs[i]) == 0 {
			return BLEUScore{}, fmt.Errorf("metrics: bleu: sentence %d has no reference", i)
		}
		h := c.encode(lower(hyp))
		rs := make([][]uint32, len(refs[i]))
		for k, r := range refs[i] {
			rs[k] = c.encode(lower(r))
		}
		for order := 1; order <= n; order++ {
			hc := c.count(h, order)
			if len(hc) == 0 {
				continue
			}
			most := map[string]int{} // largest count in any one reference
			for _, r := range rs {
				for g, k := range c.count(r, order) {
					if _, ok := hc[g]; ok && k > most[g] {
						most[g] = k
					}
				}
			}
			for g, k := range hc {
				matches[order-1] += min(k, most[g])
			}
			totals[order-1] += len(h) - order + 1
		}
		hypLen += len(h)
		refLen += closestRefLen(len(h), refs[i])
	}
	return bleuFromCounts(matches, totals, hypLen, refLen, opt), nil
}

// SentenceBLEU is CorpusBLEU on the one sentence hyp with its references.
// Without smoothing most sentences score 0 for lack of a 4-gram match;
// sacrebleu's sentence_bleu defaults are BLEUOptions{Smooth: SmoothExp,
// EffectiveOrder: true}.
func SentenceBLEU(hyp []string, refs [][]string, opt BLEUOptions) (BLEUScore, error) {
	return CorpusBLEU([][]string{hyp}, [][][]string{refs}, opt)
}

// closestRefLen is the length of the reference closest in length to a
// hypothesis of length h, the shorter one on a tie (sacrebleu, nltk).
func closestRefLen(h int, refs [][]string) int {
	best := -1
	for _, r := range refs {
		d, bd := abs(len(r)-h), abs(best-h)
		if best < 0 || d < bd || (d == bd && len(r) < best) {
			best = len(r)
		}
	}
	return best
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// bleuFromCounts turns summed statistics into a score, following sacrebleu's
// BLEU.compute_bleu step for step.
func bleuFromCounts(matches, totals []int, hypLen, refLen int, opt BLEUOptions) BLEUScore {
	n := len(matches)
	s := BLEUScore{
		Precisions: make([]float64, n),
		BP:         1,
		HypLen:     hypLen,
		RefLen:     refLen,
		Matches:    matches,
		Totals:     totals,
	}
	if hypLen < refLen {
		s.BP = 0
		if hypLen > 0 {
			s.BP = math.Exp(1 - float64(refLen)/float64(hypLen))
		}
	}
	if refLen > 0 {
		s.Ratio = float64(hypLen) / float64(refLen)
	}
	if matches[0] == 0 { // no unigram match means no match at all
		return s
	}
	k := opt.SmoothValue
	if k == 0 {
		k = opt.Smooth.defaultValue()
	}
	used := 0     // orders whose hypotheses hold at least one n-gram
	expDiv := 1.0 // 2^(number of zero-match orders so far), for SmoothExp
	for i := range n {
		m, t := float64(matches[i]), float64(totals[i])
		if opt.Smooth == SmoothAddK && i > 0 {
			m, t = m+k, t+k
		}
		if t == 0 {
			break
		}
		used = i + 1
		var p float64
		switch {
		case m > 0:
			p = m / t
		case opt.Smooth == SmoothExp:
			expDiv *= 2
			p = 1 / (expDiv * t)
		case opt.Smooth == SmoothFloor:
			p = k / t
		}
		s.Precisions[i] = 100 * p
	}
	order := n
	if opt.EffectiveOrder {
		order = used
	}
	logSum := 0.0
	for _, p := range s.Precisions[:order] {
		if p == 0 {
			return s // log 0: BLEU is 0
		}
		logSum += math.Log(p / 100)
	}
	s.BLEU = 100 * s.BP * math.Exp(logSum/float64(order))
	return s
}

// ngramCounter counts n-grams of token ids; each n-gram is keyed by its ids
// as 4 bytes apiece, which no choice of token strings can make ambiguous.
type ngramCounter struct {
	ids map[string]uint32
	key []byte
}

func (c *ngramCounter) encode(toks []string) []uint32 {
	out := make([]uint32, len(toks))
	for i, tok := range toks {
		id, ok := c.ids[tok]
		if !ok {
			id = uint32(len(c.ids))
			c.ids[tok] = id
		}
		out[i] = id
	}
	return out
}

func (c *ngramCounter) count(ids []uint32, n int) map[string]int {
	m := map[string]int{}
	for i := 0; i+n <= len(ids); i++ {
		c.key = c.key[:0]
		for _, id := range ids[i : i+n] {
			c.key = binary.LittleEndian.AppendUint32(c.key, id)
		}
		m[string(c.key)]++
	}
	return m
}
