package metrics

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The expected values of these tests were computed by sacreBLEU 2.6.0
// itself from the case files in testdata/sacrebleu: see its README.md for
// the command (gen.py) and the versions.
const sacreDir = "../testdata/sacrebleu"

// readJSONL decodes every line of a testdata/sacrebleu file into a T.
func readJSONL[T any](t *testing.T, name string) []T {
	t.Helper()
	f, err := os.Open(filepath.Join(sacreDir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s:%d: %v", name, n, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("%s: no cases", name)
	}
	return out
}

// readCase reads a case file as sacreBLEU's CLI does: lines split at "\n"
// only, trailing whitespace stripped.
func readCase(t *testing.T, name string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(sacreDir, name))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRightFunc(l, isPySpace)
	}
	return lines
}

// readRefs reads a case's reference files into refs[i] = the references
// of sentence i.
func readRefs(t *testing.T, names []string) [][]string {
	t.Helper()
	var refs [][]string
	for k, name := range names {
		lines := readCase(t, name)
		if k == 0 {
			refs = make([][]string, len(lines))
		}
		for i, l := range lines {
			refs[i] = append(refs[i], l)
		}
	}
	return refs
}

// sacreSignature turns sacreBLEU's signature into the one attnzoo prints.
func sacreSignature(sig string) string {
	return strings.Replace(sig, "|version:"+SacreBLEUVersion, "|version:attnzoo-"+SacreBLEUVersion, 1)
}

// TestTokenizeSacreBLEU: every line of every case, raw (trailing whitespace
// kept), split as sacreBLEU's BLEU splits it before counting n-grams
// (BLEU(tokenize=T)._preprocess_segment(line).split()).
func TestTokenizeSacreBLEU(t *testing.T) {
	type row struct {
		Tok string   `json:"tok"`
		In  string   `json:"in"`
		Out []string `json:"out"`
	}
	seen := map[string]int{}
	for i, r := range readJSONL[row](t, "tokens.jsonl") {
		tok, err := ParseTokenizer(r.Tok)
		if err != nil {
			t.Fatal(err)
		}
		seen[r.Tok]++
		if got := tok.Tokenize(r.In); !slices.Equal(got, r.Out) && !(len(got) == 0 && len(r.Out) == 0) {
			t.Errorf("tokens.jsonl:%d: %s %q:\n got  %q\n want %q", i+1, r.Tok, r.In, got, r.Out)
		}
	}
	for _, name := range TokenizerNames() {
		if seen[name] == 0 {
			t.Errorf("no sacreBLEU case for tokenizer %s", name)
		}
	}
}

// sacreCase is one line of expected.jsonl.
type sacreCase struct {
	Case      string   `json:"case"`
	Refs      []string `json:"refs"`
	Metric    string   `json:"metric"`
	Tokenize  string   `json:"tokenize"`
	WordOrder int      `json:"word_order"`
	Score     float64  `json:"score"`
	Counts    []int    `json:"counts"`
	Totals    []int    `json:"totals"`
	HypLen    int      `json:"hyp_len"`
	RefLen    int      `json:"ref_len"`
	Signature string   `json:"signature"`
}

// sacreCases are expected.jsonl's cases of metric ("bleu", "chrf"); fewer
// than least is an error (the file lost some).
func sacreCases(t *testing.T, metric string, least int) []sacreCase {
	t.Helper()
	var out []sacreCase
	for _, c := range readJSONL[sacreCase](t, "expected.jsonl") {
		if c.Metric == metric {
			out = append(out, c)
		}
	}
	if len(out) < least {
		t.Errorf("only %d %s cases in expected.jsonl", len(out), metric)
	}
	return out
}

// TestCorpusBLEUTextSacreBLEU: sacreBLEU's default BLEU (exp smoothing)
// with each tokenizer on each case: detokenized English with punctuation,
// "3.5", "1,000", "$", "€", entities; German; Russian; Chinese; and odd
// whitespace, symbols, emoji and combining marks.
func TestCorpusBLEUTextSacreBLEU(t *testing.T) {
	for _, c := range sacreCases(t, "bleu", 20) {
		t.Run(c.Case+"/"+c.Tokenize, func(t *testing.T) {
			tok, err := ParseTokenizer(c.Tokenize)
			if err != nil {
				t.Fatal(err)
			}
			opt := BLEUOptions{Smooth: SmoothExp}
			s, err := CorpusBLEUText(readCase(t, c.Case+".hyp"), readRefs(t, c.Refs), tok, opt)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(s.BLEU-c.Score) > 1e-9 || !slices.Equal(s.Matches, c.Counts) || !slices.Equal(s.Totals, c.Totals) ||
				s.HypLen != c.HypLen || s.RefLen != c.RefLen {
				t.Errorf("got BLEU %.12f matches %v totals %v len %d/%d\nwant      %.12f         %v        %v     %d/%d",
					s.BLEU, s.Matches, s.Totals, s.HypLen, s.RefLen, c.Score, c.Counts, c.Totals, c.HypLen, c.RefLen)
			}
			if got, want := BLEUSignature(len(c.Refs), tok, opt), sacreSignature(c.Signature); got != want {
				t.Errorf("signature %q, want %q", got, want)
			}
		})
	}
}

// TestCorpusCHRFSacreBLEU: sacreBLEU's chrF2 (CHRF()) and chrF2++
// (CHRF(word_order=2)) on each case.
func TestCorpusCHRFSacreBLEU(t *testing.T) {
	for _, c := range sacreCases(t, "chrf", 10) {
		opt := CHRFOptions{WordOrder: c.WordOrder}
		t.Run(c.Case+"/"+CHRFScore{Beta: 2, WordOrder: c.WordOrder}.Name(), func(t *testing.T) {
			s, err := CorpusCHRF(readCase(t, c.Case+".hyp"), readRefs(t, c.Refs), opt)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(s.CHRF-c.Score) > 1e-9 {
				t.Errorf("got chrF %.12f, want %.12f", s.CHRF, c.Score)
			}
			if got, want := CHRFSignature(len(c.Refs), opt), sacreSignature(c.Signature); got != want {
				t.Errorf("signature %q, want %q", got, want)
			}
		})
	}
}
