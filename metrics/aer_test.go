package metrics

import (
	"maps"
	"math"
	"testing"
)

func links(pairs ...int) []Link {
	var out []Link
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, Link{Src: pairs[i], Tgt: pairs[i+1]})
	}
	return out
}

// TestCountLinks works AER = 1 − (|A∩S| + |A∩P|)/(|A| + |S|) (Och & Ney
// 2003), precision |A∩P|/|A| and recall |A∩S|/|S| by hand for each case.
func TestCountLinks(t *testing.T) {
	tests := []struct {
		name                   string
		hyp, sure, possible    []Link
		want                   AlignCounts
		aer, precision, recall float64
	}{
		// nltk alignment_error_rate doctest: S = {0-0,1-1,2-2},
		// A = {0-0,1-2,2-1}, P = S: 1 − (1+1)/(3+3) = 0.6666666666666667.
		{"nltk doctest", links(0, 0, 1, 2, 2, 1), links(0, 0, 1, 1, 2, 2), nil,
			AlignCounts{A: 3, S: 3, AS: 1, AP: 1}, 2.0 / 3, 1.0 / 3, 1.0 / 3},
		// A = {0-0,1-1,2-1,2-2}, S = {0-0,1-1}, P = {2-2,1-2} ∪ S:
		// A∩S = {0-0,1-1}, A∩P = {0-0,1-1,2-2}: 1 − 5/6; precision 3/4, recall 2/2.
		{"sure and possible", links(0, 0, 1, 1, 2, 1, 2, 2), links(0, 0, 1, 1), links(2, 2, 1, 2),
			AlignCounts{A: 4, S: 2, AS: 2, AP: 3}, 1.0 / 6, 3.0 / 4, 1},
		// A proposed possible link is not an error: S = {0-0}, P = {0-0,1-1},
		// A = {0-0,1-1}: 1 − (1+2)/(2+1) = 0; the sure link listed in P too
		// is counted once.
		{"possible proposed", links(0, 0, 1, 1), links(0, 0), links(0, 0, 1, 1),
			AlignCounts{A: 2, S: 1, AS: 1, AP: 2}, 0, 1, 1},
		// No hypothesis links: 1 − 0/2 = 1; precision is vacuously 1, recall 0.
		{"no hypothesis", nil, links(0, 0, 1, 1), nil,
			AlignCounts{A: 0, S: 2}, 1, 1, 0},
		// No sure links, P = {0-0}, A = {0-0,1-1}: 1 − (0+1)/(2+0) = 1/2,
		// which is 1 − precision; recall vacuously 1.
		{"no sure", links(0, 0, 1, 1), nil, links(0, 0),
			AlignCounts{A: 2, S: 0, AS: 0, AP: 1}, 0.5, 0.5, 1},
		// Nothing proposed, nothing sure: AER 0 (not 0/0), precision and recall 1.
		{"both empty", nil, nil, links(3, 3),
			AlignCounts{}, 0, 1, 1},
		// All links sure (P = S): S = {0-0,1-2,2-0,3-3}, A = {0-0,1-1,2-0}:
		// 1 − (2+2)/(3+4) = 3/7 = 1 − F1, F1 = 2·(2/3)(1/2)/(2/3+1/2) = 4/7.
		{"all sure", links(0, 0, 1, 1, 2, 0), links(0, 0, 1, 2, 2, 0, 3, 3), nil,
			AlignCounts{A: 3, S: 4, AS: 2, AP: 2}, 3.0 / 7, 2.0 / 3, 0.5},
		// Duplicates count once: A = [0-0 0-0] is {0-0}: AER 0.
		{"duplicates", links(0, 0, 0, 0), links(0, 0), nil,
			AlignCounts{A: 1, S: 1, AS: 1, AP: 1}, 0, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := CountLinks(tt.hyp, tt.sure, tt.possible)
			if c != tt.want {
				t.Fatalf("counts = %+v, want %+v", c, tt.want)
			}
			if math.Abs(c.AER()-tt.aer) > 1e-12 || math.Abs(c.Precision()-tt.precision) > 1e-12 || math.Abs(c.Recall()-tt.recall) > 1e-12 {
				t.Errorf("AER, P, R = %v, %v, %v; want %v, %v, %v", c.AER(), c.Precision(), c.Recall(), tt.aer, tt.precision, tt.recall)
			}
			// The identity stated on Recall holds in every case.
			if c.A+c.S > 0 {
				w := 1 - (float64(c.A)*c.Precision()+float64(c.S)*c.Recall())/float64(c.A+c.S)
				if math.Abs(w-c.AER()) > 1e-12 {
					t.Errorf("weighted identity gives %v, AER %v", w, c.AER())
				}
			}
		})
	}
}

// TestCorpusAER: corpus AER sums counts before dividing. Pair 1 is
// "sure and possible" above (A 4, S 2, A∩S 2, A∩P 3), pair 2 "no hypothesis"
// (A 0, S 2): 1 − (2+3)/(4+4) = 3/8, not the mean (1/6 + 1)/2 of the
// sentence AERs; precision 3/4, recall 2/4.
func TestCorpusAER(t *testing.T) {
	hyps := [][]Link{links(0, 0, 1, 1, 2, 1, 2, 2), nil}
	sure := [][]Link{links(0, 0, 1, 1), links(0, 0, 1, 1)}
	poss := [][]Link{links(2, 2, 1, 2), nil}
	c, err := CorpusAER(hyps, sure, poss)
	if err != nil {
		t.Fatal(err)
	}
	if c != (AlignCounts{A: 4, S: 4, AS: 2, AP: 3}) || math.Abs(c.AER()-3.0/8) > 1e-12 ||
		c.Precision() != 0.75 || c.Recall() != 0.5 {
		t.Errorf("got %+v AER %v P %v R %v; want AER 3/8, P 3/4, R 1/2", c, c.AER(), c.Precision(), c.Recall())
	}
	// possible nil means P = S: pair 1 then has A∩P = A∩S = 2, so
	// 1 − (2+2)/(4+4) = 1/2.
	c, err = CorpusAER(hyps, sure, nil)
	if err != nil || c.AER() != 0.5 {
		t.Errorf("P = S: got %v, %v; want 0.5", c.AER(), err)
	}
}

func TestCorpusAERErrors(t *testing.T) {
	one := [][]Link{links(0, 0)}
	two := [][]Link{links(0, 0), nil}
	tests := []struct {
		name                 string
		hyps, sure, possible [][]Link
		want                 string
	}{
		{"hyp vs sure", two, one, nil, "metrics: aer: 2 hypothesis alignments but 1 sure alignments"},
		{"sure vs possible", one, one, two, "metrics: aer: 1 sure alignments but 2 possible alignments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := CorpusAER(tt.hyps, tt.sure, tt.possible)
			if err == nil || err.Error() != tt.want {
				t.Errorf("got %v, want %q", err, tt.want)
			}
		})
	}
}

// TestCrossingCounts by hand: S = {0-0, 2-1, 1-2, 3-3}; 2-1 and 1-2 cross
// ((2−1)·(1−2) < 0), 0-0 and 3-3 cross nothing, so the crossing words
// are 1 and 2. P = S ∪ {1-1}, A = {0-0, 1-1, 1-2, 3-3}.
//   - crossing (words 1, 2): A = {1-1, 1-2}, S = {2-1, 1-2},
//     P = S ∪ {1-1}: |A∩S| = 1, |A∩P| = 2, AER = 1 − 3/4 = 0.25;
//   - non-crossing (words 0, 3): A = S = {0-0, 3-3}: AER = 0;
//   - the whole: |A| = |S| = 4, |A∩S| = 3, |A∩P| = 4, AER = 1 − 7/8,
//     the two halves' counts added.
//
// A second pair, 2 × 2 with S = {0-1, 1-0} (crossing) and A = {0-0, 0-1}
// (P = S): crossing |A| = |S| = 2, |A∩S| = |A∩P| = 1, so over both pairs
// the crossing AER is 1 − ((1 + 2) + (1 + 1))/((2 + 2) + (2 + 2)) =
// 1 − 5/8 = 0.375, and the non-crossing one stays 0.
func TestCrossingCounts(t *testing.T) {
	sure := links(0, 0, 2, 1, 1, 2, 3, 3)
	poss := links(1, 1)
	hyp := links(0, 0, 1, 1, 1, 2, 3, 3)
	if got, want := CrossingWords(sure), map[int]bool{1: true, 2: true}; !maps.Equal(got, want) {
		t.Errorf("CrossingWords = %v, want %v", got, want)
	}
	x, n := CrossingCounts(hyp, sure, poss)
	if want := (AlignCounts{A: 2, S: 2, AS: 1, AP: 2}); x != want || x.AER() != 0.25 {
		t.Errorf("crossing %+v (AER %v), want %+v (0.25)", x, x.AER(), want)
	}
	if want := (AlignCounts{A: 2, S: 2, AS: 2, AP: 2}); n != want || n.AER() != 0 {
		t.Errorf("non-crossing %+v (AER %v), want %+v (0)", n, n.AER(), want)
	}
	if w := CountLinks(hyp, sure, poss); x.Add(n) != w || w.AER() != 1-7.0/8 {
		t.Errorf("halves %+v + %+v, whole %+v (AER %v, want 1/8)", x, n, w, w.AER())
	}
	cx, cn, err := CorpusCrossingAER([][]Link{hyp, links(0, 0, 0, 1)}, [][]Link{sure, links(0, 1, 1, 0)}, [][]Link{poss, nil})
	if err != nil || cx.AER() != 0.375 || cn.AER() != 0 {
		t.Errorf("corpus: crossing %v, non-crossing %v, %v; want 0.375, 0", cx.AER(), cn.AER(), err)
	}
	if _, _, err := CorpusCrossingAER([][]Link{hyp}, nil, nil); err == nil {
		t.Error("no error for 1 hypothesis and 0 sure alignments")
	}
	// links sharing a word do not cross; nothing crosses: every word non-crossing
	if got := CrossingWords(links(0, 0, 0, 1, 1, 1, 2, 1)); len(got) != 0 {
		t.Errorf("CrossingWords of a monotone gold = %v, want none", got)
	}
}
