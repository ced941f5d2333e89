package metrics

import (
	"slices"
	"testing"
)

// Tokenize's agreement with sacreBLEU is tested on every case of
// testdata/sacrebleu in TestTokenizeSacreBLEU; these pin the names.

func TestParseTokenizer(t *testing.T) {
	if got, want := TokenizerNames(), []string{"13a", "char", "intl", "none"}; !slices.Equal(got, want) {
		t.Errorf("TokenizerNames() = %v, want %v", got, want)
	}
	for _, name := range TokenizerNames() {
		tok, err := ParseTokenizer(name)
		if err != nil || tok.String() != name {
			t.Errorf("ParseTokenizer(%q) = %v, %v", name, tok, err)
		}
	}
	if _, err := ParseTokenizer("zh"); err == nil || err.Error() != `metrics: unknown tokenizer "zh" (have: 13a, char, intl, none)` {
		t.Errorf("ParseTokenizer(zh): error %v", err)
	}
	if DefaultTokenizer.String() != "13a" || Tokenizer(0) != TokenizerNone {
		t.Errorf("default %v, zero value %v: want 13a (sacreBLEU's default) and none", DefaultTokenizer, Tokenizer(0))
	}
	if got := Tokenizer(9).String(); got != "Tokenizer(9)" {
		t.Errorf("Tokenizer(9).String() = %q", got)
	}
}
