package subword

import (
	"fmt"
	"strings"
)

// Scheme is how a sequence of tokens marks its words.
type Scheme int

const (
	Words         Scheme = iota // every token is a word
	BPEPieces                   // a piece ending with Separator ("@@") continues into the next
	SentencePiece               // a piece starting with Space ("▁") starts a word
)

// Space stands for the space before a word in SentencePiece pieces.
const Space = "▁"

func (s Scheme) String() string {
	switch s {
	case Words:
		return "words"
	case BPEPieces:
		return "bpe"
	case SentencePiece:
		return "sentencepiece"
	}
	return fmt.Sprintf("Scheme(%d)", int(s))
}

// WordOf returns the index of the word each token belongs to: 0 for the
// first, never decreasing, rising by one where a word starts. The first
// token starts a word whatever it is.
func (s Scheme) WordOf(toks []string) []int {
	out := make([]int, len(toks))
	w := 0
	for i, t := range toks {
		if i > 0 {
			switch s {
			case BPEPieces:
				if !strings.HasSuffix(toks[i-1], Separator) {
					w++
				}
			case SentencePiece:
				if strings.HasPrefix(t, Space) {
					w++
				}
			default:
				w++
			}
		}
		out[i] = w
	}
	return out
}

// Join returns the words of toks, one for each index WordOf gives: BPE
// pieces lose their separators ([low@@ est er] is [lowest er]) and
// SentencePiece pieces their spaces ([▁low est ▁er] is [lowest er]), and
// byte pieces (byte fallback) become the UTF-8 they spell ([▁caf <0xC3>
// <0xA9>] is [café]) as spm_decode reads them. A word left empty (a lone
// "▁", say) is kept as "".
func (s Scheme) Join(toks []string) []string {
	if len(toks) == 0 {
		return nil
	}
	of := s.WordOf(toks)
	words := make([]string, of[len(of)-1]+1)
	if s == SentencePiece {
		var b strings.Builder
		var run []byte
		for i, t := range toks {
			if c, ok := pieceByte(t); ok {
				run = append(run, c)
			} else {
				run = writeUTF8(&b, run)
				b.WriteString(strings.ReplaceAll(t, Space, ""))
			}
			if i+1 == len(toks) || of[i+1] != of[i] {
				run = writeUTF8(&b, run)
				words[of[i]] = b.String()
				b.Reset()
			}
		}
		return words
	}
	for i, t := range toks {
		if s == BPEPieces {
			t = strings.TrimSuffix(t, Separator)
		}
		words[of[i]] += t
	}
	return words
}

// WordAttention maps piece-level attention attn [target pieces × source
// pieces] to words [target words × source words], given the word of each
// target piece (tgtWord, one per row) and of each source piece (srcWord,
// one per column), as Scheme.WordOf gives them. A source word's weight is
// the sum of its pieces' weights, so each row still sums to what it summed
// to; a target word's row is the mean of its pieces' rows, so it too is a
// distribution over source words. Attention rows and columns that are not
// pieces (an end-of-sentence row, say) must be left out by the caller.
func WordAttention(attn [][]float64, tgtWord, srcWord []int) ([][]float64, error) {
	if len(attn) != len(tgtWord) {
		return nil, fmt.Errorf("subword: attention has %d rows for %d target pieces", len(attn), len(tgtWord))
	}
	nt, ns := words(tgtWord), words(srcWord)
	if nt < 0 || ns < 0 {
		return nil, fmt.Errorf("subword: word indices must start at 0 and rise by at most 1")
	}
	out := make([][]float64, nt)
	for i := range out {
		out[i] = make([]float64, ns)
	}
	count := make([]int, nt)
	for t, row := range attn {
		if len(row) != len(srcWord) {
			return nil, fmt.Errorf("subword: attention row %d has %d columns for %d source pieces", t, len(row), len(srcWord))
		}
		w := tgtWord[t]
		count[w]++
		for s, v := range row {
			out[w][srcWord[s]] += v
		}
	}
	for w, row := range out {
		for s := range row {
			row[s] /= float64(count[w])
		}
	}
	return out, nil
}

// words is the number of words an index list from WordOf names, -1 if it
// is not one.
func words(of []int) int {
	for i, w := range of {
		if i == 0 && w != 0 || i > 0 && (w < of[i-1] || w > of[i-1]+1) {
			return -1
		}
	}
	if len(of) == 0 {
		return 0
	}
	return of[len(of)-1] + 1
}
