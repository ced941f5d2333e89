package metrics

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// Tokenizer is one of sacreBLEU's BLEU tokenizers (its --tokenize names),
// which split a detokenized line into the tokens BLEU counts. The zero
// value is TokenizerNone: split at whitespace only.
type Tokenizer int

const (
	// TokenizerNone splits at whitespace only (sacreBLEU's "none"): for
	// text that is already tokenized.
	TokenizerNone Tokenizer = iota
	// Tokenizer13a is mteval-v13a.pl's tokenization and sacreBLEU's
	// default ("13a"): it unescapes &quot; &amp; &lt; &gt;, splits off
	// ASCII punctuation and symbols, and splits "." and "," except
	// between digits ("3.5" and "1,000" stay whole) and "-" after a digit.
	Tokenizer13a
	// TokenizerIntl is mteval-v14.pl's international tokenization
	// ("intl"): every Unicode punctuation mark (\p{P}) not both preceded
	// and followed by a digit (\p{N}) and every symbol (\p{S}) is split
	// off.
	TokenizerIntl
	// TokenizerChar makes every character other than whitespace a token
	// ("char"), for scripts written without spaces.
	TokenizerChar
)

// DefaultTokenizer is sacreBLEU's default tokenizer, 13a.
const DefaultTokenizer = Tokenizer13a

var tokenizerNames = [...]string{"none", "13a", "intl", "char"}

// String returns the tokenizer's name as sacreBLEU's --tokenize spells it.
func (t Tokenizer) String() string {
	if t < 0 || int(t) >= len(tokenizerNames) {
		return fmt.Sprintf("Tokenizer(%d)", int(t))
	}
	return tokenizerNames[t]
}

// TokenizerNames returns the tokenizers' names, sorted.
func TokenizerNames() []string {
	return slices.Sorted(slices.Values(tokenizerNames[:]))
}

// ParseTokenizer returns the tokenizer named name: 13a, char, intl or none.
func ParseTokenizer(name string) (Tokenizer, error) {
	for i, n := range tokenizerNames {
		if n == name {
			return Tokenizer(i), nil
		}
	}
	return 0, fmt.Errorf("metrics: unknown tokenizer %q (have: %s)", name, strings.Join(TokenizerNames(), ", "))
}

// Tokenize splits line into tokens as sacreBLEU's BLEU does before it
// counts n-grams: trailing whitespace stripped, the tokenizer applied, the
// result split at whitespace. Whitespace is Python's (str.split): Unicode's
// White_Space characters and U+001C–U+001F. An unknown Tokenizer value
// splits at whitespace only.
func (t Tokenizer) Tokenize(line string) []string {
	line = strings.TrimRightFunc(line, isPySpace)
	switch t {
	case Tokenizer13a:
		line = tokenize13a(line)
	case TokenizerIntl:
		line = tokenizeIntl(line)
	case TokenizerChar:
		var toks []string
		for _, r := range line {
			if !isPySpace(r) {
				toks = append(toks, string(r))
			}
		}
		return toks
	}
	return strings.FieldsFunc(line, isPySpace)
}

// isPySpace reports whether Python's str.isspace holds for r: Go's
// unicode.IsSpace plus the separators U+001C–U+001F.
func isPySpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// rewrite is one regular-expression substitution of a tokenizer, applied to
// every non-overlapping match left to right (as Python's re.sub).
type rewrite struct {
	re   *regexp.Regexp
	repl string
}

func rewriteAll(line string, rules []rewrite) string {
	for _, r := range rules {
		line = r.re.ReplaceAllString(line, r.repl)
	}
	return line
}

// rules13a are sacreBLEU's TokenizerRegexp (tokenizer_re.py), the
// language-dependent part of mteval-v13a.pl.
var rules13a = []rewrite{
	// ASCII punctuation and symbols other than ' , - . and digits
	{regexp.MustCompile("([\\{-\\~\\[-\\` -\\&\\(-\\+\\:-\\@\\/])"), " ${1} "},
	// period and comma unless preceded by a digit
	{regexp.MustCompile(`([^0-9])([\.,])`), "${1} ${2} "},
	// period and comma unless followed by a digit
	{regexp.MustCompile(`([\.,])([^0-9])`), " ${1} ${2}"},
	// dash when preceded by a digit
	{regexp.MustCompile(`([0-9])(-)`), "${1} ${2} "},
}

// tokenize13a is sacreBLEU's Tokenizer13a (tokenizer_13a.py).
func tokenize13a(line string) string {
	line = strings.ReplaceAll(line, "<skipped>", "")
	line = strings.ReplaceAll(line, "-\n", "")
	line = strings.ReplaceAll(line, "\n", " ")
	if strings.Contains(line, "&") {
		line = strings.ReplaceAll(line, "&quot;", `"`)
		line = strings.ReplaceAll(line, "&amp;", "&")
		line = strings.ReplaceAll(line, "&lt;", "<")
		line = strings.ReplaceAll(line, "&gt;", ">")
	}
	return rewriteAll(" "+line+" ", rules13a)
}

// rulesIntl are sacreBLEU's TokenizerV14International (tokenizer_intl.py).
// Go's \p classes and those of Python's regex module (2022.10.31) hold the
// same code points (checked over all of Unicode for N, P and S).
var rulesIntl = []rewrite{
	// punctuation preceded by a non-digit
	{regexp.MustCompile(`(\P{N})(\p{P})`), "${1} ${2} "},
	// punctuation followed by a non-digit
	{regexp.MustCompile(`(\p{P})(\P{N})`), " ${1} ${2}"},
	// symbols
	{regexp.MustCompile(`(\p{S})`), " ${1} "},
}

func tokenizeIntl(line string) string { return rewriteAll(line, rulesIntl) }
