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
func FormatPharaoh(links []Link) string { return FormatPharaohBase(links, 0) }

// FormatPharaohBase is FormatPharaoh with every index written plus base:
// base 1 gives the 1-based links of the gold alignments the word-alignment
// community shares (lilt/alignment-scripts, awesome-align).
func FormatPharaohBase(links []Link, base int) string {
	return FormatGold(links, nil, base)
}

// FormatGold writes a gold alignment as the word-alignment community does:
// sure links "i-j" and possible links "ipj" (e.g. "14p19"), every index
// plus base, sorted by source then target index, each link once; a link in
// both lists is written sure. ParseGoldBase with the same base reads it
// back.
func FormatGold(sure, possible []Link, base int) string {
	type mark struct {
		l    Link
		sep  byte
		rank int // 0 sure, 1 possible: a link in both is written sure
	}
	all := make([]mark, 0, len(sure)+len(possible))
	for _, l := range sure {
		all = append(all, mark{l, '-', 0})
	}
	for _, l := range possible {
		all = append(all, mark{l, 'p', 1})
	}
	slices.SortFunc(all, func(a, b mark) int {
		return cmp.Or(cmp.Compare(a.l.Src, b.l.Src), cmp.Compare(a.l.Tgt, b.l.Tgt), cmp.Compare(a.rank, b.rank))
	})
	all = slices.CompactFunc(all, func(a, b mark) bool { return a.l == b.l })
	var b strings.Builder
	for i, m := range all {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%d%c%d", m.l.Src+base, m.sep, m.l.Tgt+base)
	}
	return b.String()
}

// ParsePharaoh reads one line of Pharaoh links, "Src-Tgt" pairs of
// non-negative integers separated by any whitespace, in the order given. A
// blank line is an empty alignment. A token that is not of that form ("1-",
// "a-b", "-1-2", "1-2-P") is an error naming it; gold files with sure and
// possible marks are read with ParseGold.
func ParsePharaoh(line string) ([]Link, error) { return ParsePharaohBase(line, 0) }

// ParsePharaohBase is ParsePharaoh for links whose indices start at base
// (1 for 1-based files): base is subtracted, so the links returned are
// 0-based, and an index below base is an error naming its token.
func ParsePharaohBase(line string, base int) ([]Link, error) {
	var links []Link
	for _, tok := range strings.Fields(line) {
		l, mark, err := parseLinkToken(tok, base)
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
//	ipj     a possible link, as the word-alignment community writes it
//	        (lilt/alignment-scripts' aer.py, awesome-align: "14p19")
//	i?j     a possible link (the "i?j = probably aligned" notation of
//	        some word-alignment course data sets)
//
// Indices are 0-based, source first. The possible links returned are only
// those marked possible; AER adds the sure links to them itself.
func ParseGold(line string) (sure, possible []Link, err error) { return ParseGoldBase(line, 0) }

// ParseGoldBase is ParseGold for links whose indices start at base (1 for
// the community's 1-based gold files): the links returned are 0-based, and
// an index below base is an error naming its token.
func ParseGoldBase(line string, base int) (sure, possible []Link, err error) {
	for _, tok := range strings.Fields(line) {
		l, mark, err := parseLinkToken(tok, base)
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

// parseLinkToken parses "i-j", "i-j-S", "i-j-P", "ipj" or "i?j" and
// subtracts base from both indices.
func parseLinkToken(tok string, base int) (Link, linkMark, error) {
	bad := func() (Link, linkMark, error) {
		return Link{}, noMark, fmt.Errorf("metrics: bad Pharaoh token %q: want SRC-TGT with non-negative integer indices", tok)
	}
	src, rest, ok := leadingInt(tok)
	if !ok || rest == "" || (rest[0] != '-' && rest[0] != '?' && rest[0] != 'p') {
		return bad()
	}
	sep := rest[0]
	tgt, rest, ok := leadingInt(rest[1:])
	if !ok {
		return bad()
	}
	if src < base || tgt < base {
		return Link{}, noMark, fmt.Errorf("metrics: bad Pharaoh token %q: index below %d in %d-based links", tok, base, base)
	}
	l := Link{Src: src - base, Tgt: tgt - base}
	switch {
	case rest == "" && sep != '-':
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
