package metrics

import (
	"fmt"
	"strconv"
	"strings"
)

// SacreBLEUVersion is the sacreBLEU release whose BLEU, chrF and tokenizers
// this package reproduces; the tests' expected values were computed with
// it. Signatures say "version:attnzoo-" + SacreBLEUVersion, so a score is
// never mistaken for one sacreBLEU itself printed.
const SacreBLEUVersion = "2.6.0"

// signatureVersion is the version field of every signature.
const signatureVersion = "attnzoo-" + SacreBLEUVersion

// CorpusBLEUText is corpus BLEU of detokenized lines, as sacreBLEU's
// corpus_score: refs[i] holds the references of hyps[i] (at least one; ""
// is an empty reference) and every line is lowercased (opt.Lowercase, as
// sacreBLEU's -lc) and split by tok.Tokenize before CorpusBLEU counts.
// sacreBLEU's defaults are Tokenizer13a with BLEUOptions{Smooth: SmoothExp}.
func CorpusBLEUText(hyps []string, refs [][]string, tok Tokenizer, opt BLEUOptions) (BLEUScore, error) {
	if len(hyps) != len(refs) {
		return BLEUScore{}, fmt.Errorf("metrics: bleu: %d hypotheses but %d reference sets", len(hyps), len(refs))
	}
	split := tok.Tokenize
	if opt.Lowercase { // sacreBLEU lowercases the line, then tokenizes it
		split = func(line string) []string { return tok.Tokenize(Lower(line)) }
		opt.Lowercase = false
	}
	h := make([][]string, len(hyps))
	r := make([][][]string, len(refs))
	for i, line := range hyps {
		h[i] = split(line)
		r[i] = make([][]string, len(refs[i]))
		for k, ref := range refs[i] {
			r[i][k] = split(ref)
		}
	}
	return CorpusBLEU(h, r, opt)
}

// BLEUSignature is sacreBLEU's reproducibility signature of a BLEU score,
// e.g. "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:attnzoo-2.6.0"
// (case:lc with opt.Lowercase). nrefs is the number of references each
// sentence has; 0 writes "var" (the count varies), as sacreBLEU. Like
// sacreBLEU's, it does not name MaxOrder.
func BLEUSignature(nrefs int, tok Tokenizer, opt BLEUOptions) string {
	smooth := opt.Smooth.String()
	if d := opt.Smooth.defaultValue(); d != 0 {
		v := opt.SmoothValue
		if v == 0 {
			v = d
		}
		smooth += fmt.Sprintf("[%.2f]", v)
	}
	kase := "case:mixed"
	if opt.Lowercase {
		kase = "case:lc"
	}
	return signature(nrefs, kase, "eff:"+yesNo(opt.EffectiveOrder), "tok:"+tok.String(), "smooth:"+smooth)
}

// Format writes s as sacreBLEU's text output does with a signature and two
// decimals, e.g.
//
//	BLEU|nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:attnzoo-2.6.0 = 48.53 82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)
//
// An empty signature gives String's line.
func (s BLEUScore) Format(signature string) string {
	line := s.String()
	if signature == "" {
		return line
	}
	return "BLEU|" + signature + strings.TrimPrefix(line, "BLEU")
}

func signature(nrefs int, fields ...string) string {
	n := "var"
	if nrefs > 0 {
		n = strconv.Itoa(nrefs)
	}
	return "nrefs:" + n + "|" + strings.Join(fields, "|") + "|version:" + signatureVersion
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
