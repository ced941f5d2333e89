package experiments

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/attnzoo/attnzoo/metrics"
)

// oneHot is a row of n weights with 1 at i.
func oneHot(n, i int) []float64 {
	r := make([]float64, n)
	r[i] = 1
	return r
}

// forcedRows lays out per-word rows as forced decoding gives them: with
// the credit shift, word t's row at t + shift, a uniform row at the step
// no word is credited with (</s>'s, or with shift 1 the first).
func forcedRows(words [][]float64, m, shift int) [][]float64 {
	flat := make([]float64, m)
	for i := range flat {
		flat[i] = 1 / float64(m)
	}
	rows := make([][]float64, len(words)+1)
	for i := range rows {
		rows[i] = flat
	}
	for t, w := range words {
		rows[t+shift] = w
	}
	return rows
}

// TestReferenceAlignmentHard checks issue 23's bar on the test split of the
// hard-* experiments (synlang, experiments/hard-scorers.toml, seed 1):
//
//   - an oracle attention, one-hot on a gold link of each reference word
//     (a sure one where the word has one, else a possible one, else
//     uniform), scores exactly the best one-link-per-word AER, under either
//     credit shift; the issue measured that best at 0.002–0.003 (unaligned
//     target words cost precision), so it is asserted in (0, 0.01);
//   - attention one-hot on the length-scaled diagonal scores exactly the
//     diagonal baseline;
//   - with one word dropped mid-sentence from the hypothesis, the
//     free-running score of the same oracle attention (each hypothesis
//     row against the reference's links at its position, aer_free) jumps
//     (the issue measured 0.45), while the score on the reference reads
//     rows of the reference, which a hypothesis does not change.
func TestReferenceAlignmentHard(t *testing.T) {
	if testing.Short() {
		t.Skip("generates the hard-* task's 20000 training pairs")
	}
	e, err := Load("hard-scorers.toml")
	if err != nil {
		t.Fatal(err)
	}
	runs, _ := e.Runs()
	cp, err := loadCorpus(context.Background(), runs[0])
	if err != nil {
		t.Fatal(err)
	}
	test := cp.(*textCorpus).test
	for _, shift := range []int{0, 1} {
		var oracle, diag refAlign
		var freeLinks, sure, poss [][]metrics.Link
		for i := range test.Len() {
			ex := test.Example(i)
			m, n := test.Lens(i)
			words := make([][]float64, n)
			for t := range words {
				words[t] = forcedRows(nil, m, 0)[0] // uniform: no gold link
			}
			p := ex.Possible
			if p == nil {
				p = ex.Sure
			}
			for _, l := range p { // possible first, so a sure link overrides it
				words[l.Tgt] = oneHot(m, l.Src)
			}
			for _, l := range ex.Sure {
				words[l.Tgt] = oneHot(m, l.Src)
			}
			if err := oracle.add(forcedRows(words, m, shift), m, n, ex.Sure, ex.Possible, shift); err != nil {
				t.Fatal(err)
			}
			dw := make([][]float64, n)
			for _, l := range metrics.DiagonalLinks(m, n) {
				dw[l.Tgt] = oneHot(m, l.Src)
			}
			if err := diag.add(forcedRows(dw, m, shift), m, n, ex.Sure, ex.Possible, shift); err != nil {
				t.Fatal(err)
			}
			// the hypothesis drops word n/2: its rows are the others'
			hyp := append(append([][]float64(nil), words[:n/2]...), words[min(n/2+1, n):]...)
			freeLinks = append(freeLinks, metrics.ArgmaxLinks(hyp))
			sure, poss = append(sure, ex.Sure), append(poss, p)
		}
		om, dm := map[string]float64{}, map[string]float64{}
		if err := oracle.scores(om); err != nil {
			t.Fatal(err)
		}
		if err := diag.scores(dm); err != nil {
			t.Fatal(err)
		}
		t.Logf("shift %d: oracle %.4f best %.4f diagonal %.4f (baseline %.4f) uniform %.4f", shift, om["aer"], om["aer_best"], dm["aer"], dm["aer_diag"], om["aer_uniform"])
		if math.Abs(om["aer"]-om["aer_best"]) > 1e-12 || !(om["aer_best"] > 0 && om["aer_best"] < 0.01) {
			t.Errorf("shift %d: oracle AER %v, best %v: want equal, in (0, 0.01)", shift, om["aer"], om["aer_best"])
		}
		if math.Abs(dm["aer"]-dm["aer_diag"]) > 1e-12 {
			t.Errorf("shift %d: diagonal attention's AER %v, diagonal baseline %v", shift, dm["aer"], dm["aer_diag"])
		}
		// the measurements with the metrics package: 0.002–0.003, 0.70–0.71
		if b, d := om["aer_best"], dm["aer_diag"]; b < 0.002 || b > 0.003 || d < 0.70 || d > 0.71 {
			t.Errorf("shift %d: best %v, diagonal %v: the issue measured 0.002–0.003 and 0.70–0.71", shift, b, d)
		}
		if !(om["aer_best"] < dm["aer_diag"] && dm["aer_diag"] < om["aer_uniform"] && om["aer_uniform"] < 1) {
			t.Errorf("shift %d: want best < diagonal < uniform < 1: %v %v %v", shift, om["aer_best"], dm["aer_diag"], om["aer_uniform"])
		}
		c, err := metrics.CorpusAER(freeLinks, sure, poss)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("shift %d: free-running AER of the oracle with a dropped word: %.4f", shift, c.AER())
		if c.AER() < 0.3 {
			t.Errorf("free-running AER with a dropped word %v: the issue measured 0.45", c.AER())
		}
	}
}

// TestReferenceAlignmentRun: a run records aer (on the reference), aer_free
// and the baselines, under either [eval] align_shift. On reversal every
// target word t of n has one sure link, to source n−1−t (P = S), so by
// hand over the test split's N sentences of W words in all:
//
//   - aer_best = 0 (every word can take its link);
//   - the diagonal links t to floor((2t+1)·n/(2n)) = t, which is gold only
//     for the middle word of an odd-length sentence: |A∩S| = |A∩P| = odd,
//     |A| = |S| = W, aer_diag = 1 − 2·odd/(2W) = 1 − odd/W;
//   - uniform attention hits each word's one link with chance 1/n:
//     E|A∩S| = E|A∩P| = N, aer_uniform = 1 − N/W.
func TestReferenceAlignmentRun(t *testing.T) {
	for _, shift := range []string{"0", "1"} {
		text := strings.Replace(oneRun, "STEPS", "10", 1) + "[eval]\nalign_shift = " + shift + "\n"
		path := writeExp(t, text)
		res := runExp(t, path, t.TempDir(), Options{Workers: 1})
		m := res.Finished[0].Metrics
		e, _ := Load(path)
		runs, _ := e.Runs()
		cp, err := loadCorpus(context.Background(), runs[0])
		if err != nil {
			t.Fatal(err)
		}
		test := cp.(*textCorpus).test
		words, odd := 0, 0
		for i := range test.Len() {
			_, n := test.Lens(i)
			words += n
			odd += n % 2
		}
		want := map[string]float64{"aer_best": 0, "aer_diag": 1 - float64(odd)/float64(words),
			"aer_uniform": 1 - float64(test.Len())/float64(words)}
		for k, v := range want {
			if math.Abs(m[k]-v) > 1e-12 {
				t.Errorf("align_shift %s: %s = %v, want %v", shift, k, m[k], v)
			}
		}
		for _, k := range []string{"aer", "aer_free"} {
			if v, ok := m[k]; !ok || v < 0 || v > 1 {
				t.Errorf("align_shift %s: %s = %v (present %v)", shift, k, v, ok)
			}
		}
	}
	bad := writeExp(t, strings.Replace(oneRun, "STEPS", "10", 1)+"[eval]\nalign_shift = 2\n")
	if _, err := Load(bad); err == nil || !strings.Contains(err.Error(), "[eval] align_shift") {
		t.Errorf("align_shift = 2: %v", err)
	}
}
