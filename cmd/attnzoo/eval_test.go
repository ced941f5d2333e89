package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeFixtures writes name → content files into a fresh temporary
// directory and returns it.
func writeFixtures(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runEval runs `attnzoo ARGS...` with every "@name" argument replaced by
// that file in dir, and returns stdout, stderr and the exit status.
func runEval(dir string, args ...string) (stdout, stderr string, code int, err error) {
	full := make([]string, len(args))
	for i, a := range args {
		if name, ok := strings.CutPrefix(a, "@"); ok {
			a = filepath.Join(dir, name)
		}
		full[i] = a
	}
	var out, errOut bytes.Buffer
	err = run(context.Background(), full, &out, &errOut)
	return out.String(), errOut.String(), exitCode(err, io.Discard), err
}

// The sacrebleu README example (also sacrebleu's test/test_bleu.py), raw
// and as sacrebleu's default 13a tokenizer splits it (final period split
// off, "wasn't" kept whole).
var (
	readmeHyp  = "The dog bit the man.\nIt wasn't surprising.\nThe man had just bitten him.\n"
	readmeRefA = "The dog bit the man.\nIt was not unexpected.\nThe man bit him first.\n"
	readmeRefB = "The dog had bit the man.\nNo one was surprised.\nThe man had bitten the dog.\n"
)

// evalCase is an eval command line run in a fixtures folder and the exact
// output it must print (with status 0).
type evalCase struct {
	name string
	args []string
	want string
}

// runEvalCases runs each case as a subtest in dir.
func runEvalCases(t *testing.T, dir string, tests []evalCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, code, err := runEval(dir, tt.args...)
			if code != 0 || out != tt.want {
				t.Errorf("got %q (status %d, %v), want %q", out, code, err, tt.want)
			}
		})
	}
}

func tok13a(s string) string { return strings.ReplaceAll(s, ".\n", " .\n") }

func TestEvalBLEU(t *testing.T) {
	dir := writeFixtures(t, map[string]string{
		"hyp.txt":    tok13a(readmeHyp),
		"refA.txt":   tok13a(readmeRefA),
		"refB.txt":   tok13a(readmeRefB),
		"rawhyp.txt": readmeHyp,
		"cathyp.txt": "The cat sat on the mat\nA Dog ran\n",
		"catref.txt": "the cat sat on a mat\na dog ran fast\n",
	})
	tests := []evalCase{
		// --lowercase (and its short form -lc, as sacreBLEU's): case:lc in
		// the signature; the score is worked by hand in TestEvalBLEUJSON
		// (100 · exp(−1/9) · (8/63)^(1/4) = 53.4176).
		{"lowercase", []string{"eval", "bleu", "--lowercase", "--hyp", "@cathyp.txt", "--ref", "@catref.txt"},
			"BLEU|nrefs:1|case:lc|eff:no|tok:13a|smooth:exp|version:attnzoo-2.6.0 = 53.42 88.9/71.4/60.0/33.3 (BP = 0.895 ratio = 0.900 hyp_len = 9 ref_len = 10)\n"},
		{"lc", []string{"eval", "bleu", "-lc", "--hyp", "@cathyp.txt", "--ref", "@catref.txt"},
			"BLEU|nrefs:1|case:lc|eff:no|tok:13a|smooth:exp|version:attnzoo-2.6.0 = 53.42 88.9/71.4/60.0/33.3 (BP = 0.895 ratio = 0.900 hyp_len = 9 ref_len = 10)\n"},
		// sacrebleu's README prints exactly this line for the example, and
		// sacreBLEU 2.6.0's `sacrebleu refA refB -i hyp -f text -w 2` the
		// signature (version aside); the defaults are its 13a tokenizer and
		// exp smoothing (no order lacks a match, so smoothing is moot):
		// matches 14/17, 7/14, 5/11, 3/8, BP = exp(1 − 18/17). 13a leaves
		// the tokenized text as it is.
		{"sacrebleu README", []string{"eval", "bleu", "--hyp", "@hyp.txt", "--ref", "@refA.txt", "--ref", "@refB.txt"},
			"BLEU|nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:attnzoo-2.6.0 = 48.53 82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)\n"},
		// The raw (detokenized) hypotheses against tokenized references:
		// 13a splits the hypotheses' periods off itself.
		{"13a on raw text", []string{"eval", "bleu", "--hyp", "@rawhyp.txt", "--ref", "@refA.txt", "--ref", "@refB.txt", "--tokenize", "13a"},
			"BLEU|nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:attnzoo-2.6.0 = 48.53 82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)\n"},
		// Reference order does not matter.
		{"refs swapped", []string{"eval", "bleu", "-hyp", "@hyp.txt", "-ref", "@refB.txt", "-ref", "@refA.txt", "-smooth", "exp"},
			"BLEU|nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:attnzoo-2.6.0 = 48.53 82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)\n"},
		// sacrebleu test_bleu.py test_max_ngram_order: 77.65 for order 1
		// (100 · exp(−1/17) · 14/17). sacreBLEU's signature does not name
		// the order.
		{"max order 1", []string{"eval", "bleu", "--hyp", "@hyp.txt", "--ref", "@refA.txt", "--ref", "@refB.txt", "--max-order", "1"},
			"BLEU|nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:attnzoo-2.6.0 = 77.65 82.4 (BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)\n"},
	}
	runEvalCases(t, dir, tests)
}

func TestEvalBLEUJSON(t *testing.T) {
	dir := writeFixtures(t, map[string]string{
		"rawhyp.txt":  readmeHyp,
		"rawrefA.txt": readmeRefA,
		"rawrefB.txt": strings.TrimSuffix(readmeRefB, "\n"), // no final newline
		"axy.txt":     "a b x y\n",
		"abcd.txt":    "a b c d\r\n", // CRLF
		"cathyp.txt":  "The cat sat on the mat\nA Dog ran\n",
		"catref.txt":  "the cat sat on a mat\na dog ran fast\n",
	})
	type result struct {
		BLEU       float64   `json:"bleu"`
		Precisions []float64 `json:"precisions"`
		BP         float64   `json:"bp"`
		Ratio      float64   `json:"ratio"`
		HypLen     int       `json:"hyp_len"`
		RefLen     int       `json:"ref_len"`
	}
	tests := []struct {
		name string
		args []string
		want result
	}{
		// sacrebleu test_bleu.py, tokenize none: 49.1919566. Whitespace
		// tokens ("man." is one): hyp 5+3+6 = 14, closest refs 5+4+6 = 15,
		// matches 10/14, 6/11, 4/8, 2/5, BP = exp(1 − 15/14).
		{"sacrebleu tokenize none", []string{"eval", "bleu", "--json", "--tokenize", "none", "--hyp", "@rawhyp.txt", "--ref", "@rawrefA.txt", "--ref", "@rawrefB.txt"},
			result{49.1919566, []float64{1000.0 / 14, 600.0 / 11, 50, 40}, math.Exp(-1.0 / 14), 14.0 / 15, 14, 15}},
		// Hand: "a b x y" vs "a b c d": matches 2/4, 1/3, 0/2, 0/1, BP = 1.
		// No smoothing: BLEU 0.
		{"no smoothing", []string{"eval", "bleu", "--json", "--smooth", "none", "--hyp", "@axy.txt", "--ref", "@abcd.txt"},
			result{0, []float64{50, 100.0 / 3, 0, 0}, 1, 1, 4, 4}},
		// exp: the zero orders get 1/(2·2) and 1/(4·1); (1/2·1/3·1/4·1/4)^(1/4).
		{"exp", []string{"eval", "bleu", "--json", "--smooth", "exp", "--hyp", "@axy.txt", "--ref", "@abcd.txt"},
			result{100 * math.Pow(1.0/96, 0.25), []float64{50, 100.0 / 3, 25, 25}, 1, 1, 4, 4}},
		// exp is the default, as sacreBLEU's.
		{"default smoothing", []string{"eval", "bleu", "--json", "--hyp", "@axy.txt", "--ref", "@abcd.txt"},
			result{100 * math.Pow(1.0/96, 0.25), []float64{50, 100.0 / 3, 25, 25}, 1, 1, 4, 4}},
		// floor 0.5: 0.5/2 and 0.5/1; product 1/48.
		{"floor 0.5", []string{"eval", "bleu", "--json", "--smooth", "floor", "--smooth-value", "0.5", "--hyp", "@axy.txt", "--ref", "@abcd.txt"},
			result{100 * math.Pow(1.0/48, 0.25), []float64{50, 100.0 / 3, 25, 50}, 1, 1, 4, 4}},
		// add-k 1 for n >= 2: 2/4, 2/4, 1/3, 1/2; product 1/24.
		{"add-k", []string{"eval", "bleu", "--json", "--smooth", "add-k", "--hyp", "@axy.txt", "--ref", "@abcd.txt"},
			result{100 * math.Pow(1.0/24, 0.25), []float64{50, 50, 100.0 / 3, 50}, 1, 1, 4, 4}},
		// --lowercase (sacreBLEU's -lc), worked by hand on two sentences.
		// Lowercased, hyp 1 "the cat sat on the mat" against "the cat sat
		// on a mat": unigrams 5/6 (the second "the" is clipped), bigrams
		// 3/5 (the cat, cat sat, sat on), trigrams 2/4, 4-grams 1/3 (the cat
		// sat on); hyp 2 "a dog ran" against "a dog ran fast": 3/3, 2/2,
		// 1/1, 0/0. Summed: 8/9, 5/7, 3/5, 1/3; hyp_len 9, ref_len 10, so
		// BP = exp(1 − 10/9) and BLEU = 100 · exp(−1/9) · (8/63)^(1/4).
		{"lowercase", []string{"eval", "bleu", "--json", "--lowercase", "--hyp", "@cathyp.txt", "--ref", "@catref.txt"},
			result{100 * math.Exp(-1.0/9) * math.Pow(8.0/63, 0.25), []float64{800.0 / 9, 500.0 / 7, 60, 100.0 / 3}, math.Exp(-1.0 / 9), 0.9, 9, 10}},
		// The same without it: "The", "A" and "Dog" match nothing. Hyp 1:
		// 5/6, 2/5 (cat sat, sat on), 1/4 (cat sat on), 0/3; hyp 2: 1/3
		// (ran), 0/2, 0/1. Summed: 6/9, 2/7, 1/5, 0/3; exp smoothing makes
		// the 4-grams 1/(2·3). BLEU = 100 · exp(−1/9) · (2/315)^(1/4).
		{"mixed case", []string{"eval", "bleu", "--json", "--hyp", "@cathyp.txt", "--ref", "@catref.txt"},
			result{100 * math.Exp(-1.0/9) * math.Pow(2.0/315, 0.25), []float64{600.0 / 9, 200.0 / 7, 20, 100.0 / 6}, math.Exp(-1.0 / 9), 0.9, 9, 10}},
		// BLEU-2: (1/2 · 1/3)^(1/2) = 6^(−1/2).
		{"max order 2", []string{"eval", "bleu", "--json", "--max-order", "2", "--hyp", "@axy.txt", "--ref", "@abcd.txt"},
			result{100 / math.Sqrt(6), []float64{50, 100.0 / 3}, 1, 1, 4, 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, code, err := runEval(dir, tt.args...)
			if code != 0 {
				t.Fatalf("status %d: %v", code, err)
			}
			if strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") {
				t.Errorf("want one line of JSON, got %q", out)
			}
			var got result
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("%v in %q", err, out)
			}
			near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-6 }
			ok := near(got.BLEU, tt.want.BLEU) && near(got.BP, tt.want.BP) && near(got.Ratio, tt.want.Ratio) &&
				got.HypLen == tt.want.HypLen && got.RefLen == tt.want.RefLen && len(got.Precisions) == len(tt.want.Precisions)
			for i := range got.Precisions {
				ok = ok && i < len(tt.want.Precisions) && near(got.Precisions[i], tt.want.Precisions[i])
			}
			if !ok {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// Hand-worked gold: pair 1 has A = {0-0,1-1,2-1,2-2}, S = {0-0,1-1},
// P = {2-2,1-2} ∪ S, so |A∩S| = 2, |A∩P| = 3; pair 2 has A = {} and
// S = {0-0,1-1}. Summed: |A| = 4, |S| = 4, |A∩S| = 2, |A∩P| = 3, so
// AER = 1 − (2+3)/(4+4) = 3/8, precision 3/4, recall 2/4.
// Without possible links (P = S) pair 1 has |A∩P| = 2: AER = 1 − 4/8 = 1/2,
// precision 2/4. No sure links cross there, so --crossing adds only
// aer_noncross, equal to aer.
//
// --crossing on x*.txt (metrics.TestCrossingCounts's case): S = {0-0, 2-1,
// 1-2, 3-3}, P = S ∪ {1-1}, A = {0-0, 1-1, 1-2, 3-3}; 2-1 and 1-2 cross,
// so words 1 and 2 are crossing. Whole: |A| = |S| = 4, |A∩S| = 3,
// |A∩P| = 4, AER = 1/8, precision 1, recall 3/4. Crossing: A = {1-1, 1-2},
// S = {2-1, 1-2}: |A∩S| = 1, |A∩P| = 2, AER = 1 − 3/4, recall 1/2.
// Non-crossing: A = S = {0-0, 3-3}, AER 0.
func TestEvalAER(t *testing.T) {
	dir := writeFixtures(t, map[string]string{
		"hyp.txt":    "0-0 1-1  2-1 2-2\n\n",
		"sure.txt":   "0-0 1-1\n1-1 0-0\n",
		"poss.txt":   "2-2 1-2\n\n",
		"marked.txt": "0-0-S 1-1 2-2-P 1?2\n0-0 1-1\n",
		"xhyp.txt":   "0-0 1-1 1-2 3-3\n",
		"xsure.txt":  "0-0 2-1 1-2 3-3\n",
		"xposs.txt":  "1-1\n",
	})
	tests := []evalCase{
		{"sure and possible", []string{"eval", "aer", "--hyp", "@hyp.txt", "--sure", "@sure.txt", "--possible", "@poss.txt"},
			"AER = 0.3750 precision = 0.7500 recall = 0.5000 (hyp = 4 sure = 4 hyp&sure = 2 hyp&possible = 3)\n"},
		{"json", []string{"eval", "aer", "--json", "--hyp", "@hyp.txt", "--sure", "@sure.txt", "--possible", "@poss.txt"},
			`{"aer":0.375,"precision":0.75,"recall":0.5}` + "\n"},
		// The same gold as one file with S/P marks.
		{"marked gold", []string{"eval", "aer", "--json", "--hyp", "@hyp.txt", "--sure", "@marked.txt"},
			`{"aer":0.375,"precision":0.75,"recall":0.5}` + "\n"},
		{"possible = sure", []string{"eval", "aer", "--json", "--hyp", "@hyp.txt", "--sure", "@sure.txt"},
			`{"aer":0.5,"precision":0.5,"recall":0.5}` + "\n"},
		{"no crossing", []string{"eval", "aer", "--json", "--crossing", "--hyp", "@hyp.txt", "--sure", "@sure.txt", "--possible", "@poss.txt"},
			`{"aer":0.375,"aer_noncross":0.375,"precision":0.75,"recall":0.5}` + "\n"},
		{"crossing", []string{"eval", "aer", "--crossing", "--hyp", "@xhyp.txt", "--gold", "@xsure.txt", "--possible", "@xposs.txt"},
			"AER = 0.1250 precision = 1.0000 recall = 0.7500 (hyp = 4 sure = 4 hyp&sure = 3 hyp&possible = 4)\n" +
				"crossing: AER = 0.2500 precision = 1.0000 recall = 0.5000 (hyp = 2 sure = 2 hyp&sure = 1 hyp&possible = 2)\n" +
				"non-crossing: AER = 0.0000 precision = 1.0000 recall = 1.0000 (hyp = 2 sure = 2 hyp&sure = 2 hyp&possible = 2)\n"},
		{"crossing json", []string{"eval", "aer", "--json", "--crossing", "--hyp", "@xhyp.txt", "--gold", "@xsure.txt", "--possible", "@xposs.txt"},
			`{"aer":0.125,"aer_cross":0.25,"aer_noncross":0,"precision":1,"recall":0.75}` + "\n"},
	}
	runEvalCases(t, dir, tests)
}

func TestEvalErrors(t *testing.T) {
	dir := writeFixtures(t, map[string]string{
		"h3.txt":     "a\nb\nc\n",
		"r3.txt":     "a\nb\nc\n",
		"r2.txt":     "a\nb\n",
		"empty.txt":  "",
		"al.txt":     "0-0\n0-1 a-b\n",
		"al2.txt":    "0-0\n1-1\n",
		"al1.txt":    "0-0\n",
		"gold.txt":   "0-0\n1-1-X\n",
		"gold1.txt":  "1-1\n2p2 0-3\n",
		"latin1.txt": "a\nb\xe4r\nc\n",
	})
	tests := []struct {
		name string
		args []string
		code int
		want []string // substrings of the error
	}{
		{"no subcommand", []string{"eval"}, 2, []string{"eval: missing subcommand (have: aer, bleu, bleu-paired, chrf)"}},
		{"unknown subcommand", []string{"eval", "rouge"}, 2, []string{`eval: unknown subcommand "rouge" (have: aer, bleu, bleu-paired, chrf)`}},
		{"help", []string{"eval", "--help"}, 0, nil},
		{"bleu help", []string{"eval", "bleu", "-h"}, 0, nil},
		{"missing hyp", []string{"eval", "bleu", "--ref", "@r3.txt"}, 2, []string{"eval bleu: missing --hyp"}},
		{"missing ref", []string{"eval", "bleu", "--hyp", "@h3.txt"}, 2, []string{"eval bleu: missing --ref"}},
		{"unknown flag", []string{"eval", "bleu", "--hyp", "@h3.txt", "--ref", "@r3.txt", "--tokenise", "13a"}, 2, []string{"eval bleu:", "-tokenise"}},
		{"bad tokenize", []string{"eval", "bleu", "--hyp", "@h3.txt", "--ref", "@r3.txt", "--tokenize", "zh"}, 2,
			[]string{`eval bleu: unknown --tokenize "zh" (have: 13a, char, intl, none)`}},
		{"not utf-8", []string{"eval", "bleu", "--hyp", "@h3.txt", "--ref", "@latin1.txt"}, 1, []string{"latin1.txt:2: not valid UTF-8"}},
		{"chrf missing hyp", []string{"eval", "chrf", "--ref", "@r3.txt"}, 2, []string{"eval chrf: missing --hyp"}},
		{"chrf missing ref", []string{"eval", "chrf", "--hyp", "@h3.txt"}, 2, []string{"eval chrf: missing --ref"}},
		{"chrf bad beta", []string{"eval", "chrf", "--hyp", "@h3.txt", "--ref", "@r3.txt", "--beta", "0"}, 2, []string{"--beta must be >= 1, got 0"}},
		{"chrf bad char order", []string{"eval", "chrf", "--hyp", "@h3.txt", "--ref", "@r3.txt", "--char-order", "0"}, 2, []string{"--char-order must be >= 1, got 0"}},
		{"chrf bad word order", []string{"eval", "chrf", "--hyp", "@h3.txt", "--ref", "@r3.txt", "--word-order", "-1"}, 2, []string{"--word-order must be >= 0, got -1"}},
		{"chrf line counts", []string{"eval", "chrf", "--hyp", "@h3.txt", "--ref", "@r2.txt"}, 1, []string{"h3.txt has 3 lines but ", "r2.txt has 2"}},
		{"chrf not utf-8", []string{"eval", "chrf", "--hyp", "@latin1.txt", "--ref", "@r3.txt"}, 1, []string{"eval chrf:", "latin1.txt:2: not valid UTF-8"}},
		{"bad smooth", []string{"eval", "bleu", "--hyp", "@h3.txt", "--ref", "@r3.txt", "--smooth", "add-one"}, 2,
			[]string{`unknown --smooth "add-one" (have: add-k, exp, floor, none)`}},
		{"bad max order", []string{"eval", "bleu", "--hyp", "@h3.txt", "--ref", "@r3.txt", "--max-order", "0"}, 2, []string{"--max-order must be >= 1, got 0"}},
		{"bad smooth value", []string{"eval", "bleu", "--hyp", "@h3.txt", "--ref", "@r3.txt", "--smooth-value", "-1"}, 2, []string{"--smooth-value must be >= 0"}},
		{"positional", []string{"eval", "bleu", "--hyp", "@h3.txt", "--ref", "@r3.txt", "extra.txt"}, 2, []string{`unexpected argument "extra.txt"`}},
		{"missing file", []string{"eval", "bleu", "--hyp", "@nope.txt", "--ref", "@r3.txt"}, 1, []string{"eval bleu:", "nope.txt"}},
		{"missing ref file", []string{"eval", "bleu", "--hyp", "@h3.txt", "--ref", "@r3.txt", "--ref", "@gone.txt"}, 1, []string{"gone.txt"}},
		{"line counts", []string{"eval", "bleu", "--hyp", "@h3.txt", "--ref", "@r3.txt", "--ref", "@r2.txt"}, 1,
			[]string{"h3.txt has 3 lines but ", "r2.txt has 2"}},
		{"empty file", []string{"eval", "bleu", "--hyp", "@empty.txt", "--ref", "@r3.txt"}, 1, []string{"empty.txt: empty file"}},
		{"aer missing hyp", []string{"eval", "aer", "--sure", "@al2.txt"}, 2, []string{"eval aer: missing --hyp"}},
		{"aer missing gold", []string{"eval", "aer", "--hyp", "@al2.txt"}, 2, []string{"eval aer: missing --gold"}},
		{"aer gold and sure", []string{"eval", "aer", "--hyp", "@al2.txt", "--gold", "@al2.txt", "--sure", "@al2.txt"}, 2, []string{"--gold and --sure are one flag"}},
		{"aer bad gold base", []string{"eval", "aer", "--hyp", "@al2.txt", "--gold", "@al2.txt", "--gold-base", "2"}, 2, []string{"--gold-base must be 0 or 1, got 2"}},
		{"aer bad hyp base", []string{"eval", "aer", "--hyp", "@al2.txt", "--gold", "@al2.txt", "--hyp-base", "-1"}, 2, []string{"--hyp-base must be 0 or 1, got -1"}},
		// A 0 in a file said to be 1-based names the file, line and token.
		{"aer index below gold base", []string{"eval", "aer", "--hyp", "@al2.txt", "--gold", "@gold1.txt", "--gold-base", "1"}, 1,
			[]string{"gold1.txt:2:", `"0-3": index below 1 in 1-based links`}},
		{"aer index below hyp base", []string{"eval", "aer", "--hyp", "@al2.txt", "--gold", "@gold1.txt", "--hyp-base", "1"}, 1,
			[]string{"al2.txt:1:", `"0-0": index below 1 in 1-based links`}},
		{"aer bad token", []string{"eval", "aer", "--hyp", "@al.txt", "--sure", "@al2.txt"}, 1, []string{"al.txt:2:", `"a-b"`}},
		{"aer bad gold mark", []string{"eval", "aer", "--hyp", "@al2.txt", "--sure", "@gold.txt"}, 1, []string{"gold.txt:2:", `"1-1-X"`}},
		{"aer line counts", []string{"eval", "aer", "--hyp", "@al2.txt", "--sure", "@al1.txt"}, 1, []string{"al2.txt has 2 lines but ", "al1.txt has 1"}},
		{"aer possible line counts", []string{"eval", "aer", "--hyp", "@al2.txt", "--sure", "@al2.txt", "--possible", "@al1.txt"}, 1,
			[]string{"al2.txt has 2 lines but ", "al1.txt has 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, code, err := runEval(dir, tt.args...)
			if code != tt.code {
				t.Fatalf("status %d, want %d (error %v)", code, tt.code, err)
			}
			if out != "" {
				t.Errorf("stdout %q, want nothing", out)
			}
			for _, w := range tt.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("error %v, want it to contain %q", err, w)
				}
			}
		})
	}
}

// Example_eval scores the sacrebleu README example (13a-tokenized) and a
// one-pair alignment. Expected lines: see TestEvalBLEU and TestEvalAER.
func Example_eval() {
	dir, err := os.MkdirTemp("", "attnzoo-eval")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	files := map[string]string{
		"hyp.txt":   tok13a(readmeHyp),
		"ref1.txt":  tok13a(readmeRefA),
		"ref2.txt":  tok13a(readmeRefB),
		"align.txt": "0-0 1-1 2-1 2-2\n",
		"sure.txt":  "0-0 1-1 2-2-P 1?2\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			fmt.Println(err)
			return
		}
	}
	p := func(name string) string { return filepath.Join(dir, name) }
	ctx := context.Background()
	for _, args := range [][]string{
		{"eval", "bleu", "--hyp", p("hyp.txt"), "--ref", p("ref1.txt"), "--ref", p("ref2.txt")},
		{"eval", "aer", "--hyp", p("align.txt"), "--sure", p("sure.txt"), "--json"},
	} {
		if err := run(ctx, args, os.Stdout, os.Stderr); err != nil {
			fmt.Println(err)
		}
	}
	// Output:
	// BLEU|nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:attnzoo-2.6.0 = 48.53 82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)
	// {"aer":0.16666666666666663,"precision":0.75,"recall":1}
}

// TestEvalSacreBLEUCLI runs `attnzoo eval bleu` with each tokenizer and
// `attnzoo eval chrf` (chrF2 and chrF2++) on every case of
// testdata/sacrebleu and compares the whole line with the one sacreBLEU
// 2.6.0's command line printed for the same files (cli.txt: `sacrebleu
// REFS -i HYP -m bleu -tok T -f text -w 2`, `-m chrf --chrf-word-order
// N`; see testdata/sacrebleu/README.md), its version field aside.
func TestEvalSacreBLEUCLI(t *testing.T) {
	const dir = "../../testdata/sacrebleu"
	data, err := os.ReadFile(filepath.Join(dir, "cli.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) < 30 {
		t.Fatalf("cli.txt has %d lines, want 30", len(lines))
	}
	for _, line := range lines {
		f := strings.SplitN(line, "\t", 4)
		if len(f) != 4 {
			t.Fatalf("cli.txt: bad line %q", line)
		}
		name, metric, tok, sacre := f[0], f[1], f[2], f[3]
		t.Run(name+"/"+metric+"/"+tok, func(t *testing.T) {
			refs, err := filepath.Glob(filepath.Join(dir, name+".ref*"))
			if err != nil || len(refs) == 0 {
				t.Fatalf("no references for %s: %v", name, err)
			}
			args := []string{"eval", "bleu", "--tokenize", tok}
			switch metric {
			case "chrf0":
				args = []string{"eval", "chrf"}
			case "chrf2":
				args = []string{"eval", "chrf", "--word-order", "2"}
			}
			args = append(args, "--hyp", filepath.Join(dir, name+".hyp"))
			for _, r := range refs {
				args = append(args, "--ref", r)
			}
			out, _, code, err := runEval("", args...)
			want := strings.Replace(sacre, "|version:2.6.0 ", "|version:attnzoo-2.6.0 ", 1) + "\n"
			if code != 0 || out != want {
				t.Errorf("got  %q (status %d, %v)\nwant %q", out, code, err, want)
			}
		})
	}
}

// TestEvalCHRFJSON: --json gives the score, its name and signature. By
// hand (sacreBLEU 2.6.0's CHRF().corpus_score gives the same 100, 62.5 and
// 25): "ab" against "ab" matches every character n-gram that exists (1-
// and 2-grams), so P = R = 1; against "ac", unigrams 1/2 and bigrams 0/1
// each way. With P = R the score 100·(1+β²)·P·R/(β²·P + R) is 100·P.
func TestEvalCHRFJSON(t *testing.T) {
	dir := writeFixtures(t, map[string]string{
		"h.txt":  "ab\na b\n", // whitespace is removed: "a b" is "ab"
		"r1.txt": "ab\nac\n",
		"r2.txt": "ac\nab\n",
		"r3.txt": "ac\nac\n",
	})
	tests := []evalCase{
		// Sentence 1 matches r1 and sentence 2 r2 fully: 100.
		{"two refs", []string{"eval", "chrf", "--json", "--hyp", "@h.txt", "--ref", "@r1.txt", "--ref", "@r2.txt"},
			`{"chrf":100,"name":"chrF2","signature":"nrefs:2|case:mixed|eff:yes|nc:6|nw:0|space:no|version:attnzoo-2.6.0"}` + "\n"},
		// Against r2 alone: summed unigrams 1+2 of 4, bigrams 0+1 of 2, so
		// P = R = (3/4 + 1/2)/2 = 5/8.
		{"one ref", []string{"eval", "chrf", "--json", "--hyp", "@h.txt", "--ref", "@r2.txt"},
			`{"chrf":62.5,"name":"chrF2","signature":"nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:attnzoo-2.6.0"}` + "\n"},
		// Against r3: unigrams 2/4, bigrams 0/2: P = R = (1/2 + 0)/2 = 1/4.
		{"text", []string{"eval", "chrf", "--hyp", "@h.txt", "--ref", "@r3.txt"},
			"chrF2|nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:attnzoo-2.6.0 = 25.00\n"},
	}
	runEvalCases(t, dir, tests)
}

// TestEvalBLEUJSONSignature: --json carries sacreBLEU's signature; a
// floor smoothing names its value as sacreBLEU's does ("floor[0.10]").
func TestEvalBLEUJSONSignature(t *testing.T) {
	dir := writeFixtures(t, map[string]string{"h.txt": "a b c d\n", "r.txt": "a b c d\n"})
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, `{"bleu":100,"signature":"nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:attnzoo-2.6.0"}`},
		{[]string{"--tokenize", "char", "--smooth", "floor"}, `{"bleu":100,"signature":"nrefs:1|case:mixed|eff:no|tok:char|smooth:floor[0.10]|version:attnzoo-2.6.0"}`},
		{[]string{"--tokenize", "intl", "--smooth", "add-k", "--smooth-value", "2"}, `{"bleu":100,"signature":"nrefs:1|case:mixed|eff:no|tok:intl|smooth:add-k[2.00]|version:attnzoo-2.6.0"}`},
	} {
		out, _, code, err := runEval(dir, append([]string{"eval", "bleu", "--json", "--hyp", "@h.txt", "--ref", "@r.txt"}, tt.args...)...)
		if code != 0 {
			t.Fatalf("%v: status %d: %v", tt.args, code, err)
		}
		var got, want map[string]any
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		_ = json.Unmarshal([]byte(tt.want), &want)
		if got["bleu"] != want["bleu"] || got["signature"] != want["signature"] {
			t.Errorf("%v: got %s, want %s", tt.args, out, tt.want)
		}
	}
}

// TestEvalAERCommunity scores testdata/aer: a 1-based gold file in the
// word-alignment community's format ("i-j" sure, "ipj" possible) against a
// hypothesis written 1-based and 0-based. By hand (1-based links):
//
//	pair 1: A = {1-1,2-2,3-3,4-3}, S = {1-1,2-2,3-4}, P = S ∪ {3-3,4-4}:
//	        |A| 4, |S| 3, |A∩S| 2 (1-1 2-2), |A∩P| 3 (+3-3)
//	pair 2: A = {1-2,2-2,3-3}, S = {1-2,2-1}, P = S ∪ {2-2}:
//	        |A| 3, |S| 2, |A∩S| 1, |A∩P| 2
//	pair 3: A = {1-1,14-19,15-20} (15-20 listed twice counts once),
//	        S = {1-1,15-20}, P = S ∪ {14-19}: |A| 3, |S| 2, |A∩S| 2, |A∩P| 3
//	sums: |A| 10, |S| 7, |A∩S| 5, |A∩P| 8
//	precision 8/10, recall 5/7, AER = 1 − (5+8)/(10+7) = 4/17 = 0.2353
//
// lilt/alignment-scripts' scripts/aer.py (commit 4da9bbf) on the same
// files prints "23.5% (80.0%/71.4%/10)" (`aer.py gold.talp hyp.1based
// --oneRef --oneHyp`, and `aer.py gold.talp hyp.0based --oneRef`); its
// calculate_metrics returns (0.8, 0.7142857142857143, 0.23529411764705888).
func TestEvalAERCommunity(t *testing.T) {
	const dir = "../../testdata/aer"
	want := `{"aer":0.23529411764705888,"precision":0.8,"recall":0.7142857142857143}` + "\n"
	for _, args := range [][]string{
		{"--hyp", "hyp.1based", "--hyp-base", "1", "--gold", "gold.talp", "--gold-base", "1", "--json"},
		{"--hyp", "hyp.0based", "--gold", "gold.talp", "--gold-base", "1", "--json"},
	} {
		for i, a := range args {
			if strings.Contains(a, ".") {
				args[i] = filepath.Join(dir, a)
			}
		}
		out, _, code, err := runEval("", append([]string{"eval", "aer"}, args...)...)
		if code != 0 || out != want {
			t.Errorf("%v: got %q (status %d, %v), want %q", args, out, code, err, want)
		}
	}
	out, _, _, err := runEval("", "eval", "aer", "--hyp", filepath.Join(dir, "hyp.0based"), "--gold", filepath.Join(dir, "gold.talp"), "--gold-base", "1")
	if w := "AER = 0.2353 precision = 0.8000 recall = 0.7143 (hyp = 10 sure = 7 hyp&sure = 5 hyp&possible = 8)\n"; out != w {
		t.Errorf("got %q (%v), want %q", out, err, w)
	}
}

// TestEvalBLEUPaired: metrics.TestPairedBootstrapBLEU's hand case through
// the CLI — unigram BLEU, A 75 and B 50 on the whole set, Δ 25, interval
// [−50, 100], p ≈ ¼ (the share of resamples that draw sentence 2 twice);
// the same seed gives the same p again, and mismatched files are refused
// naming them.
func TestEvalBLEUPaired(t *testing.T) {
	dir := writeFixtures(t, map[string]string{"ref.txt": "a b\nx y\n", "a.txt": "a b\nx z\n", "b.txt": "c d\nx y\n", "short.txt": "a b\n"})
	args := []string{"eval", "bleu-paired", "--ref", "@ref.txt", "--hyp-a", "@a.txt", "--hyp-b", "@b.txt", "--max-order", "1", "--samples", "10000", "--seed", "7", "--json"}
	out, _, code, err := runEval(dir, args...)
	if code != 0 {
		t.Fatalf("status %d: %v", code, err)
	}
	var r map[string]any
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r["bleu_a"] != 75.0 || r["bleu_b"] != 50.0 || r["delta"] != 25.0 || r["delta_lo"] != -50.0 || r["delta_hi"] != 100.0 || math.Abs(r["p"].(float64)-0.25) > 0.02 || r["samples"] != 10000.0 {
		t.Errorf("got %v", r)
	}
	again, _, _, _ := runEval(dir, args...)
	if again != out {
		t.Errorf("same seed, different result:\n%s%s", out, again)
	}
	_, _, code, err = runEval(dir, "eval", "bleu-paired", "--ref", "@ref.txt", "--hyp-a", "@a.txt", "--hyp-b", "@short.txt")
	if code != 1 || err == nil || !strings.Contains(err.Error(), "short.txt") {
		t.Errorf("mismatched lengths: status %d, %v", code, err)
	}
}
