package metrics

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// CHRFOptions configures CorpusCHRF. The zero value is sacreBLEU's chrF2:
// character 1..6-grams, no word n-grams, β = 2, whitespace removed, and
// sacreBLEU's effective-order averaging.
type CHRFOptions struct {
	// CharOrder is the largest character n-gram order; 0 means 6.
	CharOrder int
	// WordOrder is the largest word n-gram order; 0 (the default) is chrF,
	// 2 is chrF++ (Popović 2017).
	WordOrder int
	// Beta weighs recall β times as much as precision; 0 means 2.
	Beta int
	// Whitespace keeps spaces inside character n-grams; by default every
	// whitespace character is removed first.
	Whitespace bool
	// EpsSmoothing averages the per-order F-scores with ε = 1e-16 for an
	// order without n-grams (chrF++.py, Moses, NLTK) instead of averaging
	// precision and recall over the orders that have n-grams on both sides.
	EpsSmoothing bool
}

func (o CHRFOptions) withDefaults() CHRFOptions {
	if o.CharOrder == 0 {
		o.CharOrder = 6
	}
	if o.Beta == 0 {
		o.Beta = 2
	}
	return o
}

// CHRFScore is a corpus chrF result.
type CHRFScore struct {
	// CHRF is the score on sacreBLEU's 0–100 scale.
	CHRF float64
	// CharOrder, WordOrder and Beta are the options it was computed with.
	CharOrder, WordOrder, Beta int
}

// Name is the score's name as sacreBLEU prints it: "chrF2", or "chrF2++"
// for word order 2.
func (s CHRFScore) Name() string {
	return fmt.Sprintf("chrF%d", s.Beta) + strings.Repeat("+", s.WordOrder)
}

// Format writes s as sacreBLEU's text output with two decimals, e.g.
// "chrF2|nrefs:1|...|version:attnzoo-2.6.0 = 59.73"; an empty signature
// leaves it out.
func (s CHRFScore) Format(signature string) string {
	name := s.Name()
	if signature != "" {
		name += "|" + signature
	}
	return fmt.Sprintf("%s = %.2f", name, s.CHRF)
}

// CHRFSignature is sacreBLEU's reproducibility signature of a chrF score,
// e.g. "nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:attnzoo-2.6.0";
// nrefs 0 writes "var".
func CHRFSignature(nrefs int, opt CHRFOptions) string {
	opt = opt.withDefaults()
	return signature(nrefs, "case:mixed", "eff:"+yesNo(!opt.EpsSmoothing),
		fmt.Sprintf("nc:%d", opt.CharOrder), fmt.Sprintf("nw:%d", opt.WordOrder), "space:"+yesNo(opt.Whitespace))
}

// CorpusCHRF computes chrF (Popović 2015, "chrF: character n-gram F-score
// for automatic MT evaluation", WMT) as sacreBLEU's CHRF.corpus_score:
// refs[i] holds the references of hyps[i] (at least one); the lines are not
// tokenized. For each sentence and each order n the n-gram counts of the
// hypothesis, of the reference and their clipped matches are taken against
// the reference whose sentence-level score is highest (the first on a tie);
// the counts are summed over the corpus. Precision and recall are averaged
// over the orders with n-grams on both sides, and the score is
// 100·(1+β²)·P·R/(β²·P + R). Characters are Unicode code points.
func CorpusCHRF(hyps []string, refs [][]string, opt CHRFOptions) (CHRFScore, error) {
	switch {
	case opt.CharOrder < 0 || opt.WordOrder < 0:
		return CHRFScore{}, fmt.Errorf("metrics: chrf: orders must be >= 0, got char %d word %d", opt.CharOrder, opt.WordOrder)
	case opt.Beta < 0:
		return CHRFScore{}, fmt.Errorf("metrics: chrf: beta must be >= 0 (0 means 2), got %d", opt.Beta)
	case len(hyps) != len(refs):
		return CHRFScore{}, fmt.Errorf("metrics: chrf: %d hypotheses but %d reference sets", len(hyps), len(refs))
	case len(hyps) == 0:
		return CHRFScore{}, fmt.Errorf("metrics: chrf: no sentences")
	}
	opt = opt.withDefaults()
	total := make([]int, 3*(opt.CharOrder+opt.WordOrder))
	for i, hyp := range hyps {
		if len(refs[i]) == 0 {
			return CHRFScore{}, fmt.Errorf("metrics: chrf: sentence %d has no reference", i)
		}
		h := chrfNgrams(hyp, opt)
		var best []int
		bestF := -1.0
		for _, ref := range refs[i] {
			r := chrfNgrams(ref, opt)
			stats := make([]int, 0, len(total))
			for n := range h {
				stats = append(stats, matchStats(h[n], r[n])...)
			}
			if f := chrfFromStats(stats, opt); f > bestF {
				best, bestF = stats, f
			}
		}
		for k, v := range best {
			total[k] += v
		}
	}
	return CHRFScore{CHRF: chrfFromStats(total, opt), CharOrder: opt.CharOrder, WordOrder: opt.WordOrder, Beta: opt.Beta}, nil
}

// chrfNgrams counts a line's character n-grams for n = 1..CharOrder, then
// its word n-grams for n = 1..WordOrder.
func chrfNgrams(line string, opt CHRFOptions) []map[string]int {
	out := make([]map[string]int, 0, opt.CharOrder+opt.WordOrder)
	var words []string
	if opt.WordOrder > 0 {
		words = chrfWords(line)
	}
	if !opt.Whitespace {
		line = strings.Join(strings.FieldsFunc(line, isPySpace), "")
	}
	// starts[k] is the byte offset of the k-th character; one past the end too.
	starts := make([]int, 0, utf8.RuneCountInString(line)+1)
	for k := range line {
		starts = append(starts, k)
	}
	starts = append(starts, len(line))
	chars := len(starts) - 1
	for n := 1; n <= opt.CharOrder; n++ {
		m := map[string]int{}
		for k := 0; k+n <= chars; k++ {
			m[line[starts[k]:starts[k+n]]]++
		}
		out = append(out, m)
	}
	for n := 1; n <= opt.WordOrder; n++ {
		m := map[string]int{}
		for k := 0; k+n <= len(words); k++ {
			m[strings.Join(words[k:k+n], " ")]++
		}
		out = append(out, m)
	}
	return out
}

// chrfPunct is Python's string.punctuation, which chrF++ splits off words.
const chrfPunct = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

// chrfWords splits a line into chrF++'s words: at whitespace, then one
// punctuation mark off the end of a word of two or more characters, or else
// off its start (sacreBLEU's CHRF._remove_punctuation).
func chrfWords(line string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(line, isPySpace) {
		if utf8.RuneCountInString(w) == 1 {
			out = append(out, w)
			continue
		}
		last, size := utf8.DecodeLastRuneInString(w)
		first, fsize := utf8.DecodeRuneInString(w)
		switch {
		case strings.ContainsRune(chrfPunct, last):
			out = append(out, w[:len(w)-size], w[len(w)-size:])
		case strings.ContainsRune(chrfPunct, first):
			out = append(out, w[:fsize], w[fsize:])
		default:
			out = append(out, w)
		}
	}
	return out
}

// matchStats is one order's hypothesis n-gram count (0 when the reference
// has none), reference n-gram count and clipped matches.
func matchStats(hyp, ref map[string]int) []int {
	var h, r, m int
	for g, k := range hyp {
		h += k
		m += min(k, ref[g])
	}
	for _, k := range ref {
		r += k
	}
	if len(ref) == 0 {
		h = 0
	}
	return []int{h, r, m}
}

// chrfFromStats is sacreBLEU's CHRF._compute_f_score on stats, three counts
// (hypothesis, reference, matches) per order.
func chrfFromStats(stats []int, opt CHRFOptions) float64 {
	const eps = 1e-16
	factor := float64(opt.Beta * opt.Beta)
	order := len(stats) / 3
	score, avgP, avgR, eff := 0.0, 0.0, 0.0, 0
	for i := range order {
		h, r, m := float64(stats[3*i]), float64(stats[3*i+1]), float64(stats[3*i+2])
		p, rec := eps, eps
		if h > 0 {
			p = m / h
		}
		if r > 0 {
			rec = m / r
		}
		if d := factor*p + rec; d > 0 {
			score += (1 + factor) * p * rec / d
		} else {
			score += eps
		}
		if h > 0 && r > 0 {
			avgP += p
			avgR += rec
			eff++
		}
	}
	if opt.EpsSmoothing {
		return 100 * score / float64(order)
	}
	if eff == 0 {
		return 0
	}
	avgP /= float64(eff)
	avgR /= float64(eff)
	if avgP+avgR == 0 {
		return 0
	}
	f := (1 + factor) * avgP * avgR
	f /= factor*avgP + avgR
	return 100 * f
}
