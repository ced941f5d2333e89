package subword

import (
	"encoding/binary"
	"errors"
	"slices"
	"strings"
	"unicode/utf8"
)

// spmNormalizer is SentencePiece 0.1.97's normalizer (normalizer.cc) for
// models that escape spaces and put them before words: the model's
// precompiled character map applied longest match first, user-defined
// symbols kept as they are, white space at the ends and runs of it
// removed where remove_extra_whitespaces asks, the dummy prefix added,
// and every space written as Space.
type spmNormalizer struct {
	trie        []uint32 // the map's darts-clone double array, one unit a uint32
	replacement []byte   // the NUL-terminated strings the trie's values point into
	dummyPrefix bool
	removeExtra bool
	user        *userSymbols
}

// newSPMNormalizer reads a precompiled_charsmap: <trie size (4 bytes,
// little-endian)><double array><replacement strings>. An empty map
// normalizes nothing (the identity rule).
func newSPMNormalizer(charsmap []byte, dummyPrefix, removeExtra bool, user *userSymbols) (*spmNormalizer, error) {
	n := &spmNormalizer{dummyPrefix: dummyPrefix, removeExtra: removeExtra, user: user}
	if len(charsmap) == 0 {
		return n, nil
	}
	if len(charsmap) <= 4 {
		return nil, errors.New("precompiled_charsmap is broken: shorter than its header")
	}
	size := binary.LittleEndian.Uint32(charsmap)
	if uint64(size)+4 > uint64(len(charsmap)) || size%4 != 0 || size == 0 {
		return nil, errors.New("precompiled_charsmap is broken: its trie size exceeds the map")
	}
	blob := charsmap[4:]
	n.trie = make([]uint32, size/4)
	for i := range n.trie {
		n.trie[i] = binary.LittleEndian.Uint32(blob[4*i:])
	}
	n.replacement = blob[size:]
	return n, nil
}

// longestRule is the darts-clone DoubleArray's commonPrefixSearch over s
// keeping the longest key found: its length (0: none) and value.
func (n *spmNormalizer) longestRule(s string) (length int, value uint32) {
	unitAt := func(pos uint32) (uint32, bool) {
		if uint64(pos) >= uint64(len(n.trie)) {
			return 0, false
		}
		return n.trie[pos], true
	}
	offset := func(u uint32) uint32 { return (u >> 10) << ((u & (1 << 9)) >> 6) }
	pos := offset(n.trie[0])
	for i := 0; i < len(s); i++ {
		pos ^= uint32(s[i])
		u, ok := unitAt(pos)
		if !ok || u&(1<<31|0xff) != uint32(s[i]) { // the unit's label
			break
		}
		pos ^= offset(u)
		if u>>8&1 == 1 { // has a leaf: a key ends here
			leaf, ok := unitAt(pos)
			if !ok {
				break
			}
			length, value = i+1, leaf&(1<<31-1)
		}
	}
	return length, value
}

// prefix is NormalizePrefix: the normalized text of s's first unit and the
// bytes of s it stands for. A user-defined symbol is kept; a byte that
// starts no valid UTF-8 character becomes U+FFFD.
func (n *spmNormalizer) prefix(s string) (string, int) {
	if l := n.user.match(s); l > 0 {
		return s[:l], l
	}
	if n.trie != nil {
		if l, v := n.longestRule(s); l > 0 {
			if uint64(v) >= uint64(len(n.replacement)) {
				return "", l
			}
			r := n.replacement[v:]
			if end := strings.IndexByte(string(r), 0); end >= 0 {
				r = r[:end]
			}
			return string(r), l
		}
	}
	r, size := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError && size <= 1 {
		return "\uFFFD", 1
	}
	return s[:size], size
}

// normalize is Normalizer::Normalize: the text the model's pieces spell,
// spaces written as Space.
func (n *spmNormalizer) normalize(s string) string {
	if n.removeExtra {
		for s != "" {
			p, l := n.prefix(s)
			if p != " " {
				break
			}
			s = s[l:]
		}
	}
	if s == "" {
		return ""
	}
	var b strings.Builder
	b.Grow(len(s) * 3)
	if n.dummyPrefix {
		b.WriteString(Space)
	}
	prevSpace := n.removeExtra
	for s != "" {
		p, l := n.prefix(s)
		for prevSpace && strings.HasPrefix(p, " ") {
			p = p[1:]
		}
		if p != "" {
			for i := 0; i < len(p); i++ {
				if p[i] == ' ' {
					b.WriteString(Space)
				} else {
					b.WriteByte(p[i])
				}
			}
			prevSpace = strings.HasSuffix(p, " ")
		}
		s = s[l:]
		if !n.removeExtra {
			prevSpace = false
		}
	}
	out := b.String()
	if n.removeExtra {
		for strings.HasSuffix(out, Space) {
			out = out[:len(out)-len(Space)]
		}
	}
	return out
}

// userSymbols are a model's user-defined pieces, which the normalizer
// and the BPE split keep whole (SentencePiece's PrefixMatcher).
type userSymbols struct {
	set     map[string]bool
	lengths []int // the symbols' lengths in bytes, longest first
}

func newUserSymbols(pieces []spmPiece) *userSymbols {
	u := &userSymbols{set: map[string]bool{}}
	seen := map[int]bool{}
	for _, p := range pieces {
		if p.typ != userPiece {
			continue
		}
		u.set[p.piece] = true
		if !seen[len(p.piece)] {
			seen[len(p.piece)] = true
			u.lengths = append(u.lengths, len(p.piece))
		}
	}
	slices.SortFunc(u.lengths, func(a, b int) int { return b - a })
	return u
}

// match is the length of the longest user-defined symbol s starts with,
// 0 if none.
func (u *userSymbols) match(s string) int {
	for _, l := range u.lengths {
		if l <= len(s) && u.set[s[:l]] {
			return l
		}
	}
	return 0
}

// oneCharLen is SentencePiece's OneCharLen: the length of the UTF-8
// character s starts with as its first byte says, at most len(s).
func oneCharLen(s string) int {
	l := int("\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x02\x02\x03\x04"[s[0]>>4])
	return min(l, len(s))
}
