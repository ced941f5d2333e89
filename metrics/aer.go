package metrics

import "fmt"

// AlignCounts holds the set sizes behind alignment error rate (Och & Ney
// 2003, "A Systematic Comparison of Various Statistical Alignment Models",
// Computational Linguistics 29(1), section 5) for a hypothesis alignment A
// against sure links S and possible links P, where P is taken as P ∪ S so
// that S ⊆ P always holds. Each alignment is a set: a link listed twice
// counts once. Counts add over sentence pairs; corpus AER, precision and
// recall are taken from the sums, not averaged over sentences.
type AlignCounts struct {
	A  int // |A|, hypothesis links
	S  int // |S|, sure links
	AS int // |A ∩ S|
	AP int // |A ∩ P|
}

// CountLinks compares one sentence pair's hypothesis links with its sure and
// possible links. A nil or empty possible means P = S.
func CountLinks(hyp, sure, possible []Link) AlignCounts {
	a, s, p := linkSet(hyp), linkSet(sure), linkSet(possible)
	for l := range s {
		p[l] = struct{}{}
	}
	c := AlignCounts{A: len(a), S: len(s)}
	for l := range a {
		if _, ok := s[l]; ok {
			c.AS++
		}
		if _, ok := p[l]; ok {
			c.AP++
		}
	}
	return c
}

// Add returns the element-wise sum of c and d.
func (c AlignCounts) Add(d AlignCounts) AlignCounts {
	return AlignCounts{A: c.A + d.A, S: c.S + d.S, AS: c.AS + d.AS, AP: c.AP + d.AP}
}

// AER is 1 − (|A∩S| + |A∩P|)/(|A| + |S|). It is 0 when A and S are both
// empty (nothing was required and nothing was proposed), 1 when A is empty
// but S is not, and 1 − Precision when S is empty but A is not. When every
// gold link is sure (P = S) it equals 1 − F1 of A against S.
func (c AlignCounts) AER() float64 {
	if c.A+c.S == 0 {
		return 0
	}
	return 1 - float64(c.AS+c.AP)/float64(c.A+c.S)
}

// Precision is |A∩P|/|A|, and 1 when A is empty (no proposed link is wrong).
func (c AlignCounts) Precision() float64 {
	if c.A == 0 {
		return 1
	}
	return float64(c.AP) / float64(c.A)
}

// Recall is |A∩S|/|S|, and 1 when S is empty (no sure link was missed).
//
// With these conventions AER = 1 − (|A|·Precision + |S|·Recall)/(|A| + |S|)
// holds in every case.
func (c AlignCounts) Recall() float64 {
	if c.S == 0 {
		return 1
	}
	return float64(c.AS) / float64(c.S)
}

// CorpusAER sums CountLinks over the sentence pairs: hyps[i], sure[i] and
// possible[i] are the links of pair i. possible may be nil, meaning P = S
// for every pair. It is an error if the slices differ in length.
func CorpusAER(hyps, sure, possible [][]Link) (AlignCounts, error) {
	var c AlignCounts
	err := eachPair(hyps, sure, possible, func(h, s, p []Link) { c = c.Add(CountLinks(h, s, p)) })
	return c, err
}

// eachPair calls f with each pair's hypothesis, sure and possible links
// (nil possible: nil for every pair), after checking the slices' lengths.
func eachPair(hyps, sure, possible [][]Link, f func(h, s, p []Link)) error {
	if len(hyps) != len(sure) {
		return fmt.Errorf("metrics: aer: %d hypothesis alignments but %d sure alignments", len(hyps), len(sure))
	}
	if possible != nil && len(possible) != len(sure) {
		return fmt.Errorf("metrics: aer: %d sure alignments but %d possible alignments", len(sure), len(possible))
	}
	for i := range hyps {
		var p []Link
		if possible != nil {
			p = possible[i]
		}
		f(hyps[i], sure[i], p)
	}
	return nil
}

// CrossingWords is the set of target words of a pair with a crossing sure
// link: sure links i-j and i'-j' cross when (i − i')·(j − j') < 0 (one is
// left of the other in the source and right of it in the target). Links
// sharing a source or a target word do not cross; possible links are not
// looked at (they are the annotators' doubtful ones).
func CrossingWords(sure []Link) map[int]bool {
	out := map[int]bool{}
	for i, a := range sure {
		for _, b := range sure[i+1:] {
			if (a.Src-b.Src)*(a.Tgt-b.Tgt) < 0 {
				out[a.Tgt], out[b.Tgt] = true, true
			}
		}
	}
	return out
}

// CrossingCounts splits CountLinks(hyp, sure, possible) by target word:
// cross counts the hypothesis, sure and possible links of the pair's
// crossing words (CrossingWords), noncross those of every other word
// (those whose sure links cross none, and those with no sure link). The
// target words are partitioned, so cross.Add(noncross) is CountLinks's
// counts, and each half's AER is the AER of the alignment restricted to
// its words against the gold restricted to the same words.
func CrossingCounts(hyp, sure, possible []Link) (cross, noncross AlignCounts) {
	x := CrossingWords(sure)
	split := func(ls []Link) (in, out []Link) {
		for _, l := range ls {
			if x[l.Tgt] {
				in = append(in, l)
			} else {
				out = append(out, l)
			}
		}
		return in, out
	}
	hx, hn := split(hyp)
	sx, sn := split(sure)
	px, pn := split(possible)
	return CountLinks(hx, sx, px), CountLinks(hn, sn, pn)
}

// CorpusCrossingAER sums CrossingCounts over the sentence pairs, as
// CorpusAER sums CountLinks.
func CorpusCrossingAER(hyps, sure, possible [][]Link) (cross, noncross AlignCounts, err error) {
	err = eachPair(hyps, sure, possible, func(h, s, p []Link) {
		x, n := CrossingCounts(h, s, p)
		cross, noncross = cross.Add(x), noncross.Add(n)
	})
	return cross, noncross, err
}

func linkSet(links []Link) map[Link]struct{} {
	m := make(map[Link]struct{}, len(links))
	for _, l := range links {
		m[l] = struct{}{}
	}
	return m
}
