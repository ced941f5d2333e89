package metrics

import (
	"strings"
	"unicode"
)

// Lower lowercases s as Python's str.lower does, which is what sacreBLEU's
// -lc (lowercase=True) applies to every line before tokenizing: each
// character's full lowercase mapping, so İ (U+0130) becomes "i̇" (i and
// U+0307), and Σ becomes final ς where Unicode's Final_Sigma condition
// holds (a cased letter before it, skipping case-ignorable characters,
// and none after it), else σ: "ΟΔΟΣ" is "οδος". Every other character
// takes its simple mapping (unicode.ToLower), which is its full one.
func Lower(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r == 'Σ' || r == 'İ' }) {
		return strings.ToLower(s)
	}
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		switch r {
		case 'İ':
			b.WriteString("i\u0307")
		case 'Σ':
			if finalSigma(rs, i) {
				b.WriteRune('ς')
			} else {
				b.WriteRune('σ')
			}
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// finalSigma is Unicode's Final_Sigma condition at rs[i], as CPython's
// handle_capital_sigma tests it: \p{cased} \p{case-ignorable}* before,
// and not \p{case-ignorable}* \p{cased} after.
func finalSigma(rs []rune, i int) bool {
	j := i - 1
	for j >= 0 && caseIgnorable(rs[j]) {
		j--
	}
	if j < 0 || !cased(rs[j]) {
		return false
	}
	j = i + 1
	for j < len(rs) && caseIgnorable(rs[j]) {
		j++
	}
	return j == len(rs) || !cased(rs[j])
}

// cased is Unicode's Cased property: Lowercase, Uppercase or Lt.
func cased(r rune) bool {
	return unicode.In(r, unicode.Ll, unicode.Lu, unicode.Lt, unicode.Other_Lowercase, unicode.Other_Uppercase)
}

// caseIgnorable is Unicode's Case_Ignorable property: Mn, Me, Cf, Lm or
// Sk, or Word_Break MidLetter, MidNumLet or Single_Quote (the characters
// listed).
func caseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', '·', '\u0387', '\u055F', '\u05F4', '\u2018', '\u2019', '\u2024', '\u2027', '\uFE13', '\uFE52', '\uFE55', '\uFF07', '\uFF0E', '\uFF1A':
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}
