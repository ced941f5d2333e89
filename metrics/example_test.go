package metrics_test

import (
	"fmt"
	"strings"

	"github.com/attnzoo/attnzoo/metrics"
)

// The sacrebleu README example, tokenized as sacrebleu's default 13a
// tokenizer does (final period split off), with two references a sentence.
func ExampleCorpusBLEU() {
	hyps := [][]string{
		strings.Fields("The dog bit the man ."),
		strings.Fields("It wasn't surprising ."),
		strings.Fields("The man had just bitten him ."),
	}
	refs := [][][]string{
		{strings.Fields("The dog bit the man ."), strings.Fields("The dog had bit the man .")},
		{strings.Fields("It was not unexpected ."), strings.Fields("No one was surprised .")},
		{strings.Fields("The man bit him first ."), strings.Fields("The man had bitten the dog .")},
	}
	s, err := metrics.CorpusBLEU(hyps, refs, metrics.BLEUOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s)
	// Output:
	// BLEU = 48.53 82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)
}

// Captioning reports BLEU-1..BLEU-4: the same corpus with MaxOrder 1..4.
// By hand: 6 hypothesis tokens, 7 reference tokens, BP = exp(1 − 7/6);
// matches 5/6, 3/5 (a cat, on the, the mat), 1/4 (on the mat), 0/3, the last
// smoothed to 1/(2·3). BLEU-2 = BP·(5/6·3/5)^(1/2) = BP·√0.5, BLEU-3 = BP/2.
func ExampleBLEUOptions_maxOrder() {
	hyps := [][]string{strings.Fields("a cat sits on the mat")}
	refs := [][][]string{{strings.Fields("a cat is sitting on the mat")}}
	for n := 1; n <= 4; n++ {
		s, _ := metrics.CorpusBLEU(hyps, refs, metrics.BLEUOptions{MaxOrder: n, Smooth: metrics.SmoothExp})
		fmt.Printf("BLEU-%d = %.2f\n", n, s.BLEU)
	}
	// Output:
	// BLEU-1 = 70.54
	// BLEU-2 = 59.86
	// BLEU-3 = 42.32
	// BLEU-4 = 32.16
}

func ExampleSentenceBLEU() {
	// sacrebleu's sentence_bleu defaults: exp smoothing, effective order.
	// By hand: unigrams 2/3; bigrams 0/2 → 1/(2·2); trigrams 0/1 → 1/(4·1);
	// no 4-gram, so order 3; BP = 1: (2/3 · 1/4 · 1/4)^(1/3) = (1/24)^(1/3).
	opt := metrics.BLEUOptions{Smooth: metrics.SmoothExp, EffectiveOrder: true}
	s, _ := metrics.SentenceBLEU(strings.Fields("a little test"), [][]string{strings.Fields("a test")}, opt)
	fmt.Printf("%.4f %v\n", s.BLEU, s.Matches)
	// Output:
	// 34.6681 [2 0 0 0]
}

func ExampleCorpusAER() {
	hyps := [][]metrics.Link{{{Src: 0, Tgt: 0}, {Src: 1, Tgt: 1}, {Src: 2, Tgt: 1}, {Src: 2, Tgt: 2}}}
	sure := [][]metrics.Link{{{Src: 0, Tgt: 0}, {Src: 1, Tgt: 1}}}
	possible := [][]metrics.Link{{{Src: 2, Tgt: 2}, {Src: 1, Tgt: 2}}}
	c, err := metrics.CorpusAER(hyps, sure, possible)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%+v AER=%.4f P=%.4f R=%.4f\n", c, c.AER(), c.Precision(), c.Recall())
	// Output:
	// {A:4 S:2 AS:2 AP:3} AER=0.1667 P=0.7500 R=1.0000
}

func ExampleArgmaxLinks() {
	attn := [][]float64{ // rows: target tokens; columns: source tokens
		{0.1, 0.2, 0.7},
		{0.6, 0.3, 0.1},
		{0.2, 0.5, 0.3},
	}
	fmt.Println(metrics.FormatPharaoh(metrics.ArgmaxLinks(attn)))
	fmt.Printf("%.4f nats\n", metrics.AttentionEntropy([][]float64{{0.25, 0.25, 0.25, 0.25}}))
	// Output:
	// 0-1 1-2 2-0
	// 1.3863 nats
}

func ExampleParsePharaoh() {
	links, err := metrics.ParsePharaoh(" 0-0  2-1 1-2 ")
	fmt.Println(links, err)
	_, err = metrics.ParsePharaoh("0-0 1- 2-2")
	fmt.Println(err)
	// Output:
	// [{0 0} {2 1} {1 2}] <nil>
	// metrics: bad Pharaoh token "1-": want SRC-TGT with non-negative integer indices
}

func ExampleTokenAccuracy() {
	hyps := [][]string{strings.Fields("1 2 3"), strings.Fields("3 2")}
	refs := [][]string{strings.Fields("1 2 3"), strings.Fields("3 2 1")}
	acc, _ := metrics.TokenAccuracy(hyps, refs)
	em, _ := metrics.ExactMatch(hyps, refs)
	fmt.Printf("token accuracy %.3f, exact match %.3f\n", acc, em)
	// Output:
	// token accuracy 0.833, exact match 0.500
}

func ExamplePerplexity() {
	// 4 tokens, each predicted with probability 1/2: NLL 4·ln 2.
	ppl, _ := metrics.Perplexity(2.772588722239781, 4)
	fmt.Printf("%.4f\n", ppl)
	// Output:
	// 2.0000
}

// sacreBLEU's tokenizers on one detokenized sentence. The tokens are those
// sacreBLEU 2.6.0 gives (BLEU(tokenize=T)._preprocess_segment(s).split()):
// 13a keeps "1,000.50" and "3.5" whole and splits the final period; intl
// splits every Unicode punctuation mark not between digits, so "Müller's"
// loses its apostrophe but "2019." keeps its period (as mteval-v14.pl).
func ExampleTokenizer_Tokenize() {
	s := `He paid $1,000.50 (3.5%) for "Müller's" café in 2019.`
	for _, name := range []string{"13a", "intl", "none"} {
		tok, _ := metrics.ParseTokenizer(name)
		fmt.Printf("%-4s %q\n", tok, tok.Tokenize(s))
	}
	// Output:
	// 13a  ["He" "paid" "$" "1,000.50" "(" "3.5" "%" ")" "for" "\"" "Müller's" "\"" "café" "in" "2019" "."]
	// intl ["He" "paid" "$" "1,000.50" "(" "3.5" "%" ")" "for" "\"" "Müller" "'" "s" "\"" "café" "in" "2019."]
	// none ["He" "paid" "$1,000.50" "(3.5%)" "for" "\"Müller's\"" "café" "in" "2019."]
}

// Corpus BLEU of detokenized text as sacreBLEU computes it by default, with
// its signature: the sacrebleu README example, whose score sacreBLEU 2.6.0
// prints as this line (its version field says 2.6.0).
func ExampleCorpusBLEUText() {
	hyps := []string{"The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."}
	refs := [][]string{
		{"The dog bit the man.", "The dog had bit the man."},
		{"It was not unexpected.", "No one was surprised."},
		{"The man bit him first.", "The man had bitten the dog."},
	}
	opt := metrics.BLEUOptions{Smooth: metrics.SmoothExp}
	s, err := metrics.CorpusBLEUText(hyps, refs, metrics.DefaultTokenizer, opt)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Format(metrics.BLEUSignature(2, metrics.DefaultTokenizer, opt)))
	// Output:
	// BLEU|nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:attnzoo-2.6.0 = 48.53 82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)
}

// chrF with sacreBLEU's defaults. By hand: "ab" against "ac" matches one
// of two unigrams each way and none of one bigram, so precision and recall
// both average (1/2 + 0)/2 = 1/4 over the two orders, and
// chrF2 = 100·5·(1/4)²/(4·1/4 + 1/4) = 25 (sacreBLEU 2.6.0 gives 25.0).
func ExampleCorpusCHRF() {
	s, err := metrics.CorpusCHRF([]string{"ab"}, [][]string{{"ac"}}, metrics.CHRFOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Format(metrics.CHRFSignature(1, metrics.CHRFOptions{})))
	// Output:
	// chrF2|nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:attnzoo-2.6.0 = 25.00
}

// A gold alignment in the word-alignment community's format: 1-based, sure
// links "i-j" and possible links "ipj", read and written back.
func ExampleParseGoldBase() {
	sure, possible, err := metrics.ParseGoldBase("1-1 3p2 2-3 14p19", 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sure, possible)
	fmt.Println(metrics.FormatGold(sure, possible, 1))
	fmt.Println(metrics.FormatPharaohBase(sure, 1), "|", metrics.FormatPharaoh(sure))
	// Output:
	// [{0 0} {1 2}] [{2 1} {13 18}]
	// 1-1 2-3 3p2 14p19
	// 1-1 2-3 | 0-0 1-2
}
