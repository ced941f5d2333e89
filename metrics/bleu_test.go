package metrics

import (
	"math"
	"strings"
	"testing"
)

const tol = 1e-6

func toks(s string) []string { return strings.Fields(s) }

func refSet(rs ...string) [][]string {
	out := make([][]string, len(rs))
	for i, r := range rs {
		out[i] = toks(r)
	}
	return out
}

// The three references and two candidates of Papineni et al. (2002),
// "BLEU: a Method for Automatic Evaluation of Machine Translation", ACL,
// Example 1 (section 2.1), also the doctest data of nltk.translate.bleu_score.
var (
	papRef1  = "It is a guide to action that ensures that the military will forever heed Party commands"                      // 16 tokens
	papRef2  = "It is the guiding principle which guarantees the military forces always being under the command of the Party" // 18
	papRef3  = "It is the practical guide for the army always to heed the directions of the party"                            // 16
	papCand1 = "It is a guide to action which ensures that the military always obeys the commands of the party"               // 18
	papCand2 = "It is to insure the troops forever hearing the activity guidebook that party direct"                          // 14
)

// TestModifiedPrecision pins clipped n-gram counts (Matches/Totals).
func TestModifiedPrecision(t *testing.T) {
	tests := []struct {
		name       string
		hyp        string
		refs       [][]string
		order      int
		match, tot int
	}{
		// Papineni et al. 2002, section 2.1, Example 2: "the" occurs at most
		// twice in one reference, so 7 candidate "the" clip to 2: 2/7.
		// nltk's modified_precision doctest prints 0.2857... for it.
		{"papineni the-the-the", "the the the the the the the",
			refSet("the cat is on the mat", "there is a cat on the mat"), 1, 2, 7},
		// Papineni et al. 2002, section 2.1, Example 1: candidate 1 has
		// modified unigram precision 17/18 (only "obeys" is in no reference;
		// "the" occurs 3 times and reference 2 has 3) and bigram precision
		// 10/17 (matching: It is, is a, a guide, guide to,
		// to action, ensures that, that the, the military, of the,
		// the party). nltk prints 0.9444... and 0.5882352941176471.
		{"papineni cand1 unigram", papCand1, refSet(papRef1, papRef2, papRef3), 1, 17, 18},
		{"papineni cand1 bigram", papCand1, refSet(papRef1, papRef2, papRef3), 2, 10, 17},
		// Same sections: candidate 2 has 8/14 (It is to the forever the that
		// party) and 1/13 (only "It is"). nltk prints 0.5714... and 0.07692...
		{"papineni cand2 unigram", papCand2, refSet(papRef1, papRef2, papRef3), 1, 8, 14},
		{"papineni cand2 bigram", papCand2, refSet(papRef1, papRef2, papRef3), 2, 1, 13},
		// Hand count for candidate 1 trigrams: It is a, is a guide, a guide to,
		// guide to action, ensures that the, that the military (ref 1),
		// of the party (ref 3): 7 of 16.
		{"cand1 trigram", papCand1, refSet(papRef1, papRef2, papRef3), 3, 7, 16},
		// 4-grams: It is a guide, is a guide to, a guide to action,
		// ensures that the military: 4 of 15.
		{"cand1 4-gram", papCand1, refSet(papRef1, papRef2, papRef3), 4, 4, 15},
		// Papineni et al. 2002, section 2.2, Example 3, and nltk's
		// modified_precision doctest: "of the" gets 2/2 and 1/1, the
		// inflated precisions of a short candidate that BP exists for.
		{"of the unigram", "of the", refSet(papRef1, papRef2, papRef3), 1, 2, 2},
		{"of the bigram", "of the", refSet(papRef1, papRef2, papRef3), 2, 1, 1},
		// sacrebleu test_bleu.py test_case_statistics: counts [4 2 1 0],
		// totals [6 5 4 3] for this pair.
		{"sacrebleu stats 1", "am I am a character sequence", refSet("I am a symbol string sequence a a"), 1, 4, 6},
		{"sacrebleu stats 2", "am I am a character sequence", refSet("I am a symbol string sequence a a"), 2, 2, 5},
		{"sacrebleu stats 3", "am I am a character sequence", refSet("I am a symbol string sequence a a"), 3, 1, 4},
		{"sacrebleu stats 4", "am I am a character sequence", refSet("I am a symbol string sequence a a"), 4, 0, 3},
		// Hand: the clip is the largest count in any ONE reference (2),
		// not the sum over references (3): 2/3.
		{"clip by max not sum", "the the the", refSet("the cat the", "the"), 1, 2, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := SentenceBLEU(toks(tt.hyp), tt.refs, BLEUOptions{MaxOrder: tt.order})
			if err != nil {
				t.Fatal(err)
			}
			n := tt.order - 1
			if s.Matches[n] != tt.match || s.Totals[n] != tt.tot {
				t.Errorf("order %d: got %d/%d, want %d/%d", tt.order, s.Matches[n], s.Totals[n], tt.match, tt.tot)
			}
			if want := 100 * float64(tt.match) / float64(tt.tot); math.Abs(s.Precisions[n]-want) > tol && tt.match > 0 {
				t.Errorf("precision %d: got %v, want %v", tt.order, s.Precisions[n], want)
			}
		})
	}
}

// TestTokensAreAtomic: a token holding a space must not let n-grams match
// across token boundaries. Hand: no hypothesis unigram equals a reference
// unigram, so BLEU is 0 with 0/2 unigrams.
func TestTokensAreAtomic(t *testing.T) {
	s, err := SentenceBLEU([]string{"a b", "c"}, [][]string{{"a", "b c"}}, BLEUOptions{MaxOrder: 2})
	if err != nil {
		t.Fatal(err)
	}
	if s.Matches[0] != 0 || s.Matches[1] != 0 || s.BLEU != 0 {
		t.Errorf("got matches %v BLEU %v, want [0 0] and 0", s.Matches, s.BLEU)
	}
}

// TestBrevityPenalty uses the brevity_penalty doctests of
// nltk.translate.bleu_score: hypotheses of 12 "a" (all precisions are 1, so
// BLEU = 100·BP) against references of the given lengths.
func TestBrevityPenalty(t *testing.T) {
	tests := []struct {
		name    string
		refLens []int
		wantRef int
		wantBP  float64
	}{
		// Closest reference is 12 itself: BP = 1 (nltk prints 1.0).
		{"exact", []int{12, 15, 17}, 12, 1},
		// r = 28: BP = exp(1 − 28/12) = exp(−4/3); nltk prints 0.2635971381157267.
		{"short", []int{28, 28}, 28, 0.2635971381157267},
		// |13−12| < |2−12|, so r = 13: exp(1 − 13/12) = exp(−1/12); nltk 0.9200...
		{"closest", []int{13, 2}, 13, math.Exp(-1.0 / 12)},
		// 13 and 11 tie at distance 1; the shorter, 11, wins: BP = 1.
		{"tie to shorter", []int{13, 11}, 11, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var refs [][]string
			for _, n := range tt.refLens {
				refs = append(refs, strings.Fields(strings.Repeat("a ", n)))
			}
			s, err := SentenceBLEU(toks(strings.Repeat("a ", 12)), refs, BLEUOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if s.RefLen != tt.wantRef || math.Abs(s.BP-tt.wantBP) > 1e-12 || math.Abs(s.BLEU-100*tt.wantBP) > tol {
				t.Errorf("got ref_len %d BP %v BLEU %v, want %d, %v, %v", s.RefLen, s.BP, s.BLEU, tt.wantRef, tt.wantBP, 100*tt.wantBP)
			}
		})
	}
}

// The sacrebleu README example (also test/test_bleu.py _hyps/_refs).
// sacrebleu's default tokenizer, 13a, splits the final period off and
// leaves "wasn't" whole; readmeTok13a is that tokenization written out.
var (
	readmeHyps = []string{"The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."}
	readmeRefA = []string{"The dog bit the man.", "It was not unexpected.", "The man bit him first."}
	readmeRefB = []string{"The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."}
)

func readmeCorpus(tok func(string) []string) ([][]string, [][][]string) {
	var hyps [][]string
	var refs [][][]string
	for i := range readmeHyps {
		hyps = append(hyps, tok(readmeHyps[i]))
		refs = append(refs, [][]string{tok(readmeRefA[i]), tok(readmeRefB[i])})
	}
	return hyps, refs
}

func readmeTok13a(s string) []string { return toks(strings.ReplaceAll(s, ".", " .")) }

// TestCorpusBLEUPublished pins whole scores published by nltk and sacrebleu,
// each re-derived by hand in its comment.
func TestCorpusBLEUPublished(t *testing.T) {
	hyps13a, refs13a := readmeCorpus(readmeTok13a)
	hypsWS, refsWS := readmeCorpus(toks)
	papRefs := refSet(papRef1, papRef2, papRef3)
	nltkHyp2 := "he read the book because he was interested in world history"
	nltkRef2 := "he was interested in world history because he read the book"

	tests := []struct {
		name string
		hyps [][]string
		refs [][][]string
		opt  BLEUOptions
		want float64 // 0–100
	}{
		// nltk corpus_bleu doctest prints 0.5920...; the full value
		// 0.5920778868801042 is (28/29 · 19/27 · 13/25 · 8/23)^(1/4):
		// sentence 1 (candidate 1 above) has 17/18, 10/17, 7/16, 4/15;
		// sentence 2 has 11/11, 9/10 (all bigrams but "book because"),
		// 6/9 (he read the, read the book, he was interested, was
		// interested in, interested in world, in world history) and 4/8
		// (he read the book, he was interested in, was interested in world,
		// interested in world history). Lengths 18+11 hyp, closest refs
		// 18+11, so BP = 1. nltk's 0–1 scale, times 100.
		{"nltk corpus_bleu", [][]string{toks(papCand1), toks(nltkHyp2)},
			[][][]string{papRefs, refSet(nltkRef2)}, BLEUOptions{}, 59.20778868801042},
		// nltk sentence_bleu doctest prints 0.5045...: candidate 1 alone,
		// (17/18 · 10/17 · 7/16 · 4/15)^(1/4) = (4760/73440)^(1/4), BP = 1
		// (reference 2 has 18 tokens).
		{"nltk sentence_bleu", [][]string{toks(papCand1)}, [][][]string{papRefs},
			BLEUOptions{}, 100 * math.Pow(4760.0/73440, 0.25)},
		// nltk's second sentence alone: (1 · 9/10 · 6/9 · 4/8)^(1/4) = 0.3^(1/4);
		// the doctest prints the mean with the line above as 0.6223...
		{"nltk sentence 2", [][]string{toks(nltkHyp2)}, [][][]string{refSet(nltkRef2)},
			BLEUOptions{}, 100 * math.Pow(0.3, 0.25)},
		// sacrebleu README / test_bleu.py: 48.530827 (tokenize 13a, default
		// exp smoothing; no order lacks a match so smoothing does not act,
		// and test_bleu.py gets the same with smooth_method none).
		// Sentences 6+4+7 = 17 tokens, closest refs 6+5+7 = 18;
		// matches 14/17, 7/14, 5/11, 3/8;
		// BLEU = 100 · exp(1 − 18/17) · (14·7·5·3 / (17·14·11·8))^(1/4).
		{"sacrebleu README 13a", hyps13a, refs13a, BLEUOptions{}, 48.530827},
		{"sacrebleu README 13a exp", hyps13a, refs13a, BLEUOptions{Smooth: SmoothExp}, 48.530827},
		// test_bleu.py, tokenize none: 49.1919566. Whitespace tokens
		// ("man." is one token): 5+3+6 = 14 tokens, closest refs 5+4+6 = 15;
		// matches 10/14, 6/11, 4/8, 2/5; BP = exp(1 − 15/14).
		{"sacrebleu README tokenize none", hypsWS, refsWS, BLEUOptions{Smooth: SmoothExp}, 49.1919566},
		// test_bleu.py test_offset (raw_corpus_bleu: floor smoothing,
		// effective order, tokenize none): 0.1555722182 with the default
		// floor 0.1. Counts 4/6, 2/5, 1/4, 0/3 → floor 0.1/3; hyp 6, ref 8:
		// BP = exp(1 − 8/6). BLEU = BP · (4/6 · 2/5 · 1/4 · 0.1/3)^(1/4).
		{"sacrebleu offset floor", [][]string{toks("am I am a character sequence")},
			[][][]string{refSet("I am a symbol string sequence a a")},
			BLEUOptions{Smooth: SmoothFloor, EffectiveOrder: true}, 15.55722182},
		// Same with floor 0, which sacrebleu scores 0; here that is SmoothNone.
		{"sacrebleu offset none", [][]string{toks("am I am a character sequence")},
			[][][]string{refSet("I am a symbol string sequence a a")},
			BLEUOptions{EffectiveOrder: true}, 0},
		// test_bleu.py test_raw_bleu (floor 0.01, effective order):
		// "this is a fest" vs "this is a test": 3/4, 2/3, 1/2, 0/1 → 0.01/1,
		// BP = 1: (0.0025)^(1/4) = 0.223606797749979.
		{"sacrebleu raw fest", [][]string{toks("this is a fest")}, [][][]string{refSet("this is a test")},
			BLEUOptions{Smooth: SmoothFloor, SmoothValue: 0.01, EffectiveOrder: true}, 22.3606797749979},
		// test_raw_bleu: no unigram matches at all → 0.0 even with a floor (#141).
		{"sacrebleu raw no match", [][]string{toks("this is a test"), toks("another test")},
			[][][]string{refSet("ref1"), refSet("ref2")},
			BLEUOptions{Smooth: SmoothFloor, SmoothValue: 0.01, EffectiveOrder: true}, 0},
		// test_bleu.py test_effective_order (floor 0.01, effective order):
		// "test" vs "a test": 1/1 unigrams, no bigrams at all, so order 1
		// only; BP = exp(1 − 2/1) = 0.3678794411714425.
		{"sacrebleu eff test", [][]string{toks("test")}, [][][]string{refSet("a test")},
			BLEUOptions{Smooth: SmoothFloor, SmoothValue: 0.01, EffectiveOrder: true}, 36.78794411714425},
		// "a test" vs itself: 1.0.
		{"sacrebleu eff a test", [][]string{toks("a test")}, [][][]string{refSet("a test")},
			BLEUOptions{Smooth: SmoothFloor, SmoothValue: 0.01, EffectiveOrder: true}, 100},
		// "a little test" vs "a test": 2/3, 0/2 → 0.01/2, 0/1 → 0.01/1, no
		// 4-gram so order 3; BP = 1: (2/3 · 0.005 · 0.01)^(1/3) = 0.03218297948685433.
		{"sacrebleu eff a little test", [][]string{toks("a little test")}, [][][]string{refSet("a test")},
			BLEUOptions{Smooth: SmoothFloor, SmoothValue: 0.01, EffectiveOrder: true}, 3.218297948685433},
		// Without effective order the missing bigrams make BLEU 0 (hand).
		{"a test no eff", [][]string{toks("a test")}, [][][]string{refSet("a test")}, BLEUOptions{}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := CorpusBLEU(tt.hyps, tt.refs, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(s.BLEU-tt.want) > tol {
				t.Errorf("BLEU = %.10f, want %.10f", s.BLEU, tt.want)
			}
		})
	}
}

// TestBLEUString: sacrebleu's README prints, for the 13a-tokenized example,
// exactly this line (precisions 14/17, 7/14, 5/11, 3/8 in percent;
// BP = exp(−1/17); ratio = 17/18).
func TestBLEUString(t *testing.T) {
	hyps, refs := readmeCorpus(readmeTok13a)
	s, err := CorpusBLEU(hyps, refs, BLEUOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const want = "BLEU = 48.53 82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)"
	if got := s.String(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if s.HypLen != 17 || s.RefLen != 18 || math.Abs(s.Ratio-17.0/18) > 1e-12 || math.Abs(s.BP-math.Exp(-1.0/17)) > 1e-12 {
		t.Errorf("got %+v", s)
	}
}

// TestBLEUMaxOrder: sacrebleu test_bleu.py test_max_ngram_order prints the
// README example (13a, default exp smoothing) as 77.65, 60.50, 53.93,
// 48.53, 46.14, 43.28 for orders 1..6. Hand: 5-grams match 2/2 + 0/3
// (sentence 2 has none), 6-grams 1/1 + 0/2; order 1 is 100·BP·14/17.
func TestBLEUMaxOrder(t *testing.T) {
	hyps, refs := readmeCorpus(readmeTok13a)
	for i, want := range []string{"77.65", "60.50", "53.93", "48.53", "46.14", "43.28"} {
		order := i + 1
		t.Run(want, func(t *testing.T) {
			s, err := CorpusBLEU(hyps, refs, BLEUOptions{MaxOrder: order, Smooth: SmoothExp})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Fields(s.String())[2]; got != want || len(s.Precisions) != order {
				t.Errorf("order %d: got %s with %d precisions, want %s", order, got, len(s.Precisions), want)
			}
		})
	}
	s, _ := CorpusBLEU(hyps, refs, BLEUOptions{MaxOrder: 1})
	if want := 100 * math.Exp(-1.0/17) * 14 / 17; math.Abs(s.BLEU-want) > tol {
		t.Errorf("BLEU-1 = %v, want %v", s.BLEU, want)
	}
}

// TestBLEUSmoothing works each method by hand on hypothesis "a b x y"
// against reference "a b c d": matches 2/4, 1/3, 0/2, 0/1 and BP = 1.
func TestBLEUSmoothing(t *testing.T) {
	tests := []struct {
		name string
		opt  BLEUOptions
		prec []float64 // percent
		bleu float64
	}{
		// No smoothing: a zero precision makes BLEU 0.
		{"none", BLEUOptions{}, []float64{50, 100.0 / 3, 0, 0}, 0},
		// floor ε = 0.1: p3 = 0.1/2, p4 = 0.1/1; (1/2·1/3·1/20·1/10)^(1/4) = (1/1200)^(1/4).
		{"floor", BLEUOptions{Smooth: SmoothFloor}, []float64{50, 100.0 / 3, 5, 10}, 100 * math.Pow(1.0/1200, 0.25)},
		// floor ε = 0.5: p3 = 1/4, p4 = 1/2; product 1/48.
		{"floor 0.5", BLEUOptions{Smooth: SmoothFloor, SmoothValue: 0.5}, []float64{50, 100.0 / 3, 25, 50}, 100 * math.Pow(1.0/48, 0.25)},
		// add-k k = 1 for n >= 2: 2/4, (1+1)/(3+1), (0+1)/(2+1), (0+1)/(1+1);
		// product 1/2·1/2·1/3·1/2 = 1/24.
		{"add-k", BLEUOptions{Smooth: SmoothAddK}, []float64{50, 50, 100.0 / 3, 50}, 100 * math.Pow(1.0/24, 0.25)},
		// add-k k = 0.5: 2/4, 1.5/3.5, 0.5/2.5, 0.5/1.5; product 1/2·3/7·1/5·1/3 = 1/70.
		{"add-k 0.5", BLEUOptions{Smooth: SmoothAddK, SmoothValue: 0.5}, []float64{50, 300.0 / 7, 20, 100.0 / 3}, 100 * math.Pow(1.0/70, 0.25)},
		// exp: first zero order gets 1/(2·t3) = 1/4, the second 1/(4·t4) = 1/4;
		// product 1/2·1/3·1/4·1/4 = 1/96.
		{"exp", BLEUOptions{Smooth: SmoothExp}, []float64{50, 100.0 / 3, 25, 25}, 100 * math.Pow(1.0/96, 0.25)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := SentenceBLEU(toks("a b x y"), refSet("a b c d"), tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(s.BLEU-tt.bleu) > tol {
				t.Errorf("BLEU = %v, want %v", s.BLEU, tt.bleu)
			}
			for i := range tt.prec {
				if math.Abs(s.Precisions[i]-tt.prec[i]) > tol {
					t.Errorf("precisions = %v, want %v", s.Precisions, tt.prec)
					break
				}
			}
			if s.Matches[2] != 0 || s.Totals[2] != 2 {
				t.Errorf("raw counts changed by smoothing: %v/%v", s.Matches, s.Totals)
			}
		})
	}
}

// TestBLEUFromCounts feeds summed statistics straight in, as sacrebleu's
// test_bleu.py test_scoring and test_degenerate_statistics do.
func TestBLEUFromCounts(t *testing.T) {
	tests := []struct {
		name           string
		m, tot         []int
		hypLen, refLen int
		opt            BLEUOptions
		want           float64 // 0–100
	}{
		// test_scoring: (9/10 · 7/8 · 5/6 · 3/4)^(1/4) = 0.8375922397, BP = 1.
		{"scoring", []int{9, 7, 5, 3}, []int{10, 8, 6, 4}, 11, 11, BLEUOptions{}, 83.75922397},
		// test_degenerate_statistics, all expected 0.0:
		{"no matches", []int{0, 0, 0, 0}, []int{4, 4, 2, 1}, 0, 1, BLEUOptions{Smooth: SmoothFloor}, 0},
		{"no matches 2", []int{0, 0, 0, 0}, []int{10, 11, 12, 0}, 14, 10, BLEUOptions{Smooth: SmoothFloor, SmoothValue: 14}, 0},
		{"empty", []int{0, 0, 0, 0}, []int{0, 0, 0, 0}, 0, 0, BLEUOptions{Smooth: SmoothFloor}, 0},
		// sacrebleu's floor 0 is SmoothNone here: p4 = 0 → 0.
		{"zero 4-gram", []int{6, 5, 4, 0}, []int{6, 5, 4, 3}, 6, 6, BLEUOptions{}, 0},
		{"empty 2", []int{0, 0, 0, 0}, []int{0, 0, 0, 0}, 1, 5, BLEUOptions{Smooth: SmoothFloor, SmoothValue: 0.01}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := bleuFromCounts(tt.m, tt.tot, tt.hypLen, tt.refLen, tt.opt)
			if math.Abs(s.BLEU-tt.want) > tol {
				t.Errorf("BLEU = %v, want %v", s.BLEU, tt.want)
			}
		})
	}
}

// TestBLEUEdges: hand-worked degenerate inputs.
func TestBLEUEdges(t *testing.T) {
	// Empty hypothesis against a 3-token reference: BP = 0 (sacrebleu), BLEU 0.
	s, err := SentenceBLEU(nil, refSet("a b c"), BLEUOptions{Smooth: SmoothExp})
	if err != nil {
		t.Fatal(err)
	}
	if s.BLEU != 0 || s.BP != 0 || s.HypLen != 0 || s.RefLen != 3 || s.Ratio != 0 {
		t.Errorf("empty hypothesis: got %+v", s)
	}
	// No unigram match: all precisions 0 even with smoothing (sacrebleu #141).
	s, _ = SentenceBLEU(toks("x y z"), refSet("a b c"), BLEUOptions{Smooth: SmoothAddK})
	for _, p := range s.Precisions {
		if p != 0 {
			t.Errorf("no match: precisions %v, want all 0", s.Precisions)
		}
	}
	// Longer hypothesis: BP = 1, ratio 4/3.
	s, _ = SentenceBLEU(toks("a b c d"), refSet("a b c"), BLEUOptions{MaxOrder: 1})
	if s.BP != 1 || math.Abs(s.Ratio-4.0/3) > 1e-12 || math.Abs(s.BLEU-75) > tol {
		t.Errorf("long hypothesis: got %+v, want BP 1, ratio 4/3, BLEU 75", s)
	}
}

func TestCorpusBLEUErrors(t *testing.T) {
	one := [][]string{toks("a b")}
	tests := []struct {
		name string
		hyps [][]string
		refs [][][]string
		opt  BLEUOptions
		want string
	}{
		{"count mismatch", one, [][][]string{refSet("a"), refSet("b")}, BLEUOptions{}, "metrics: bleu: 1 hypotheses but 2 reference sets"},
		{"empty corpus", nil, nil, BLEUOptions{}, "metrics: bleu: no sentences"},
		{"no reference", one, [][][]string{{}}, BLEUOptions{}, "metrics: bleu: sentence 0 has no reference"},
		{"bad order", one, [][][]string{refSet("a")}, BLEUOptions{MaxOrder: -1}, "metrics: bleu: max order must be >= 1, got -1"},
		{"bad smooth value", one, [][][]string{refSet("a")}, BLEUOptions{SmoothValue: -1}, "metrics: bleu: smoothing value must be >= 0, got -1"},
		{"bad smoothing", one, [][][]string{refSet("a")}, BLEUOptions{Smooth: 9}, "metrics: bleu: unknown smoothing 9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := CorpusBLEU(tt.hyps, tt.refs, tt.opt)
			if err == nil || err.Error() != tt.want {
				t.Errorf("got error %v, want %q", err, tt.want)
			}
		})
	}
}

func TestParseSmoothing(t *testing.T) {
	for _, want := range []Smoothing{SmoothNone, SmoothFloor, SmoothAddK, SmoothExp} {
		t.Run(want.String(), func(t *testing.T) {
			got, err := ParseSmoothing(want.String())
			if err != nil || got != want {
				t.Errorf("ParseSmoothing(%q) = %v, %v", want.String(), got, err)
			}
		})
	}
	_, err := ParseSmoothing("add-one")
	const want = `metrics: unknown smoothing "add-one" (have: add-k, exp, floor, none)`
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}
