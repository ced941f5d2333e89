package metrics

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// FormatPharaoh writes links in the Pharaoh format of fast_align and Moses:
// space-separated "Src-Tgt" pairs, 0-based, source index first. The links
// are written sorted by source then target index, each once, so equal sets
// give equal lines (fast_align itself writes in target order; the set is
// the same). links itself is not modified. No links give "".
func FormatPharaoh(links []Link) string {
	sorted := slices.Clone(links)
	slices.SortFunc(sorted, func(a, b Link) int {
		return cmp.Or(cmp.Compare(a.Src, b.Src), cmp.Compare(a.Tgt, b.Tgt))
	})
	sorted = slices.Compact(sorted)
	var b strings.Builder
	for i, l := range sorted {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%d-%d", l.Src, l.Tgt)
	}
	return b.String()
}

// ParsePharaoh reads one line of Pharaoh links, "Src-Tgt" pairs of
// non-negative integers separated by any whitespace, in the order given. A
// blank line is an empty alignment. A token that is not of that form ("1-",
// "a-b", "-1-2", "1-2-P") is an error naming it; gold files with sure and
// possible marks are read with ParseGold.
func ParsePharaoh(line string) ([]Link, error) {
	var links []Link
	for _, tok := range strings.Fields(line) {
		l, mark, err := parseLinkToken(tok)
		if err != nil {
			return nil, err
		}
		if mark != noMark {
			return nil, fmt.Errorf("metrics: bad Pharaoh token %q: want SRC-TGT (sure/possible marks are for gold files)", tok)
		}
		links = append(links, l)
	}
	return links, nil
}

// ParseGold reads one line of a gold alignment in which links may be marked
// sure or possible. It accepts, separated by any whitespace:
//
//	i-j     a sure link (plain Pharaoh)
//	i-j-S   a sure link (also i-j-s)
//	i-j-P   a possible link (also i-j-p)
//	i?j     a possible link (the "i?j = probably aligned" notation of
//	        some word-alignment course data sets)
//
// Indices are 0-based, source first. The possible links returned are only
// those marked possible; AER adds the sure links to them itself.
func ParseGold(line string) (sure, possible []Link, err error) {
	for _, tok := range strings.Fields(line) {
		l, mark, err := parseLinkToken(tok)
		if err != nil {
			return nil, nil, err
		}
		if mark == possibleMark {
			possible = append(possible, l)
		} else {
			sure = append(sure, l)
		}
	}
	return sure, possible, nil
}

type linkMark int

const (
	noMark linkMark = iota
	sureMark
	possibleMark
)

// parseLinkToken parses "i-j", "i-j-S", "i-j-P" or "i?j".
func parseLinkToken(tok string) (Link, linkMark, error) {
	bad := func() (Link, linkMark, error) {
		return Link{}, noMark, fmt.Errorf("metrics: bad Pharaoh token %q: want SRC-TGT with non-negative integer indices", tok)
	}
	src, rest, ok := leadingInt(tok)
	if !ok || rest == "" || (rest[0] != '-' && rest[0] != '?') {
		return bad()
	}
	sep := rest[0]
	tgt, rest, ok := leadingInt(rest[1:])
	if !ok {
		return bad()
	}
	l := Link{Src: src, Tgt: tgt}
	switch {
	case rest == "" && sep == '?':
		return l, possibleMark, nil
	case rest == "":
		return l, noMark, nil
	case sep == '-' && (rest == "-S" || rest == "-s"):
		return l, sureMark, nil
	case sep == '-' && (rest == "-P" || rest == "-p"):
		return l, possibleMark, nil
	}
	return bad()
}

// leadingInt splits s after its leading ASCII digits and parses them.
func leadingInt(s string) (n int, rest string, ok bool) {
	i := 0
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, s, false
	}
	n, err := strconv.Atoi(s[:i])
	if err != nil { // too large for int
		return 0, s, false
	}
	return n, s[i:], true
}
