package tasks

import (
	"context"
	"sort"
)

// Ids of the special tokens, which start every Vocab.
const (
	PadID = 0 // padding
	UnkID = 1 // a token not in the vocabulary
	BOSID = 2 // start of sequence
	EOSID = 3 // end of sequence
)

// The special tokens, in id order.
const (
	PadToken = "<pad>"
	UnkToken = "<unk>"
	BOSToken = "<s>"
	EOSToken = "</s>"
)

var specials = [...]string{PadToken, UnkToken, BOSToken, EOSToken}

// Vocab maps tokens to ids and back: ids 0–3 are <pad>, <unk>, <s> and
// </s>, then the ordinary tokens. A Vocab is immutable and safe for
// concurrent use.
type Vocab struct {
	toks []string
	ids  map[string]int
}

// NewVocab returns the vocabulary with the special tokens, then tokens in
// order. The specials, and any token repeated, are skipped where they occur
// in tokens, so NewVocab(v.Tokens()) rebuilds v exactly (this is how a
// checkpoint stores a vocabulary); a caller that must detect a damaged list
// can compare Len with len(tokens).
func NewVocab(tokens []string) *Vocab {
	v := &Vocab{ids: make(map[string]int, len(specials)+len(tokens))}
	for _, t := range specials {
		v.add(t)
	}
	for _, t := range tokens {
		v.add(t)
	}
	return v
}

func (v *Vocab) add(tok string) {
	if _, ok := v.ids[tok]; ok {
		return
	}
	v.ids[tok] = len(v.toks)
	v.toks = append(v.toks, tok)
}

// BuildVocab counts the tokens of sentences and keeps those seen at least
// minCount times, most frequent first, ties in lexicographic order, so the
// result does not depend on map order. maxSize > 0 keeps at most maxSize
// ordinary tokens (Len is then at most maxSize+4); 0 keeps all. Special
// tokens met in sentences are not counted.
func BuildVocab(sentences [][]string, minCount, maxSize int) *Vocab {
	v, _ := BuildVocabContext(context.Background(), sentences, minCount, maxSize)
	return v
}

// BuildVocabContext is BuildVocab, stopping with ctx's error when ctx is
// done.
func BuildVocabContext(ctx context.Context, sentences [][]string, minCount, maxSize int) (*Vocab, error) {
	counts := make(map[string]int)
	for i, s := range sentences {
		if i%checkEvery == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		for _, t := range s {
			counts[t]++
		}
	}
	for _, t := range specials {
		delete(counts, t)
	}
	toks := make([]string, 0, len(counts))
	for t, n := range counts {
		if n >= minCount {
			toks = append(toks, t)
		}
	}
	sort.Slice(toks, func(i, j int) bool {
		if ci, cj := counts[toks[i]], counts[toks[j]]; ci != cj {
			return ci > cj
		}
		return toks[i] < toks[j]
	})
	if maxSize > 0 && len(toks) > maxSize {
		toks = toks[:maxSize]
	}
	return NewVocab(toks), nil
}

// Len is the number of tokens, specials included.
func (v *Vocab) Len() int { return len(v.toks) }

// ID returns tok's id, or UnkID for a token not in the vocabulary.
func (v *Vocab) ID(tok string) int {
	if id, ok := v.ids[tok]; ok {
		return id
	}
	return UnkID
}

// Token returns the token with the given id, or UnkToken for an id out of range.
func (v *Vocab) Token(id int) string {
	if id < 0 || id >= len(v.toks) {
		return UnkToken
	}
	return v.toks[id]
}

// Encode maps tokens to ids. It adds no <s> or </s>: the caller does.
func (v *Vocab) Encode(toks []string) []int {
	ids := make([]int, len(toks))
	for i, t := range toks {
		ids[i] = v.ID(t)
	}
	return ids
}

// Decode maps every id to its token, specials included: it does not stop at
// </s> nor drop <pad>, so the caller trims what it does not want.
func (v *Vocab) Decode(ids []int) []string {
	toks := make([]string, len(ids))
	for i, id := range ids {
		toks[i] = v.Token(id)
	}
	return toks
}

// Tokens returns every token in id order, specials first.
func (v *Vocab) Tokens() []string {
	return append([]string(nil), v.toks...)
}
