package metrics

import "fmt"

// The baselines an alignment score needs beside it: what a model with no
// parameters gets (the diagonal), what chance gets (uniform attention),
// and the best any one-link-per-word extraction can get (ArgmaxLinks
// gives every target word exactly one link, so an unaligned word always
// costs precision).

// DiagonalLinks links target word t of n to source floor((t + ½)·m/n) of
// m: the length-scaled diagonal, one link per word. m or n < 1 gives none.
func DiagonalLinks(m, n int) []Link {
	if m < 1 || n < 1 {
		return nil
	}
	out := make([]Link, n)
	for t := range out {
		out[t] = Link{Src: min((2*t+1)*m/(2*n), m-1), Tgt: t}
	}
	return out
}

// AntiDiagonalLinks is DiagonalLinks with the target read backwards: target
// word t of n links to source floor((2(n−1−t) + 1)·m/(2n)) of m, the
// diagonal's source for word n−1−t. On a reversal (m = n, gold t ↔ n−1−t)
// it is the gold alignment. m or n < 1 gives none.
func AntiDiagonalLinks(m, n int) []Link {
	out := DiagonalLinks(m, n)
	for t := range out {
		out[t].Src = min((2*(n-1-t)+1)*m/(2*n), m-1)
	}
	return out
}

// MonotoneLinks is the monotone one-link-per-word alignment of m source
// and n target words with the lowest AER against sure and possible (P ∪ S)
// links: every target word t links to one source s_t with
// s_0 ≤ s_1 ≤ … ≤ s_{n−1} (sources non-decreasing along the target).
// m or n < 1 gives none.
//
// AER = 1 − (|A∩S| + |A∩P|)/(|A| + |S|) is not a sum over words, but with
// one link per target word |A| = n whatever is chosen, and |S| is the
// gold's, so the lowest AER is the highest |A∩S| + |A∩P| =
// Σ_t g(s_t, t) with g(s, t) = [s-t ∈ S] + [s-t ∈ P ∪ S] ∈ {0, 1, 2},
// which is a sum over words. The dynamic programme
//
//	B(0, s) = g(s, 0),  B(t, s) = g(s, t) + max_{s' ≤ s} B(t−1, s')
//
// maximises it under the monotone constraint in O(m·n) (the max over
// s' ≤ s is a running prefix maximum); ties go to the lowest source.
// Pairs add |A|, |S|, |A∩S| and |A∩P| to the corpus sums independently and
// |A| is fixed for each, so the per-pair optimum is the corpus optimum.
// Links outside the m × n grid are never proposed and so never hit.
func MonotoneLinks(m, n int, sure, possible []Link) []Link {
	if m < 1 || n < 1 {
		return nil
	}
	gain := make([][]int, n)
	for t := range gain {
		gain[t] = make([]int, m)
	}
	in := func(l Link) bool { return l.Src >= 0 && l.Src < m && l.Tgt >= 0 && l.Tgt < n }
	for l := range linkSet(possible) {
		if in(l) {
			gain[l.Tgt][l.Src] = 1 // in P
		}
	}
	for l := range linkSet(sure) {
		if in(l) {
			gain[l.Tgt][l.Src] = 2 // in S and so in P ∪ S
		}
	}
	// best[s]: B(t, s); from[t][s]: the s' ≤ s that B(t, s) extends
	best := append([]int(nil), gain[0]...)
	from := make([][]int, n)
	for t := 1; t < n; t++ {
		from[t] = make([]int, m)
		arg := 0
		next := make([]int, m)
		for s := range next {
			if best[s] > best[arg] {
				arg = s
			}
			from[t][s] = arg
			next[s] = gain[t][s] + best[arg]
		}
		best = next
	}
	s := 0
	for i, b := range best {
		if b > best[s] {
			s = i
		}
	}
	out := make([]Link, n)
	for t := n - 1; t >= 0; t-- {
		out[t] = Link{Src: s, Tgt: t}
		if t > 0 {
			s = from[t][s]
		}
	}
	return out
}

// BestLinks is the one-link-per-word alignment of n target words with the
// lowest AER against sure and possible (P ∪ S) links: each word t takes a
// sure link of t if it has one (the lowest source), else a possible one,
// else source 0. Every word's choice adds to |A ∩ S| + |A ∩ P| alone and
// |A| = n whatever is chosen, so choosing per word is optimal for the
// corpus AER too.
func BestLinks(n int, sure, possible []Link) []Link {
	best := make([]Link, n)
	rank := make([]int, n) // 2: sure, 1: possible, 0: none
	for t := range best {
		best[t] = Link{Src: 0, Tgt: t}
	}
	offer := func(ls []Link, r int) {
		for _, l := range ls {
			if l.Tgt < 0 || l.Tgt >= n {
				continue
			}
			if r > rank[l.Tgt] || r == rank[l.Tgt] && l.Src < best[l.Tgt].Src {
				best[l.Tgt], rank[l.Tgt] = l, r
			}
		}
	}
	offer(sure, 2)
	offer(possible, 1)
	return best
}

// UniformAER is the AER of attention spread evenly over the source, read
// one link per word with the link drawn uniformly (ties broken at random),
// in expectation: pair i has m = srcLens[i] source and n = tgtLens[i]
// target words; |A| = Σ n is fixed and a word t hits its sure links with
// probability |S_t|/m, so E|A∩S| = Σ_t |S_t|/m and E|A∩P| = Σ_t |P_t|/m
// (P ∪ S, links outside the sentence ignored), and
//
//	AER = 1 − (E|A∩S| + E|A∩P|) / (|A| + |S|).
//
// (Taking the ratio of the expectations: the corpus sums make the
// difference from the expected ratio negligible.)
func UniformAER(srcLens, tgtLens []int, sure, possible [][]Link) (float64, error) {
	if len(srcLens) != len(tgtLens) || len(sure) != len(srcLens) || possible != nil && len(possible) != len(sure) {
		return 0, fmt.Errorf("metrics: uniform aer: %d source lengths, %d target lengths, %d sure and %d possible alignments", len(srcLens), len(tgtLens), len(sure), len(possible))
	}
	var a, s int
	var as, ap float64
	for i, m := range srcLens {
		n := tgtLens[i]
		if m < 1 {
			continue
		}
		var p []Link
		if possible != nil {
			p = possible[i]
		}
		ss, ps := linkSet(sure[i]), linkSet(p)
		for l := range ss {
			ps[l] = struct{}{}
		}
		a += n
		s += len(ss)
		for l := range ss {
			if l.Tgt >= 0 && l.Tgt < n && l.Src >= 0 && l.Src < m {
				as += 1 / float64(m)
			}
		}
		for l := range ps {
			if l.Tgt >= 0 && l.Tgt < n && l.Src >= 0 && l.Src < m {
				ap += 1 / float64(m)
			}
		}
	}
	if a+s == 0 {
		return 0, nil
	}
	return 1 - (as+ap)/float64(a+s), nil
}
