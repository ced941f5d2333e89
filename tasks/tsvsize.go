package tasks

import (
	"context"
	"math"
	"slices"
	"sync"
)

// Size of a tsv task comes from one streaming pass over its files, before
// anything large is allocated: the pairs each split keeps (after max_len),
// the longest and mean lengths, and each side's vocabulary after min_count
// and max_vocab. With fixed splits the vocabulary counts the training
// file, as Load does, so they are exact. With one file split at random
// they count the whole file, the training split's an upper bound, and the
// split sizes are the fractions of the pairs (Load cuts whole source
// sentences). A file that cannot be read gives a zero Size: CheckSize says
// why.
func (t *tsvTask) Size() Size {
	s, _ := t.CheckSize(context.Background())
	return s
}

// CheckSize is Size and what reading the files found wrong: a missing file,
// a bad line, a test_align line that does not fit its pair. The pass is
// made once per task.
func (t *tsvTask) CheckSize(ctx context.Context) (Size, error) {
	t.sizeMu.Lock()
	defer t.sizeMu.Unlock()
	if t.sized {
		return t.size, nil
	}
	s, err := t.scan(ctx)
	if err != nil {
		return Size{}, err
	}
	t.size, t.sized = s, true
	return s, nil
}

// tsvSizeCache is a tsvTask's Size once known.
type tsvSizeCache struct {
	sizeMu sync.Mutex
	sized  bool
	size   Size
}

// Bytes Load holds besides 4 a token: a pair's two end offsets and its
// place in a split; a distinct token's string header, map entry and vocab
// id (its bytes are counted apart); with one file split at random, a
// pair's sentence number, its place in the sentence order and the hash
// index while grouping.
const (
	bytesPerPair      = 3 * 4
	bytesPerType      = 16 + 48 + 4
	bytesPerRandPair  = 2*4 + 24
	bytesPerTokenHeld = 4
)

func (t *tsvTask) scan(ctx context.Context) (Size, error) {
	tr := newTextReader(ctx, t.format, t.newTok)
	var (
		pairs   [3]int
		tokens  [2]int
		longest [2]int
		counts  [2][]uint32 // by type: occurrences in training (random: everywhere)
		lens    [][2]int    // the test split's, for test_align
	)
	// count counts a pair of split i (3: path, counted as training)
	count := func(i int) func(src, tgt []uint32) error {
		return func(src, tgt []uint32) error {
			if t.tooLong(i, src, tgt) {
				return nil
			}
			split := i % 3
			pairs[split]++
			for side, ids := range [2][]uint32{src, tgt} {
				tokens[side] += len(ids)
				longest[side] = max(longest[side], len(ids))
				if split == 0 {
					for len(counts[side]) < len(tr.tab[side].types) {
						counts[side] = append(counts[side], 0)
					}
					for _, id := range ids {
						counts[side][id]++
					}
				}
			}
			if split == 2 && t.align != "" {
				var l [2]int
				for i, ids := range [2][]uint32{src, tgt} {
					l[i] = t.wordLen(i, len(ids), func(k int) string { return tr.tab[i].types[ids[k]] })
				}
				lens = append(lens, l)
			}
			return nil
		}
	}
	if t.path != "" {
		if err := t.readSplit(tr, 3, count(3)); err != nil {
			return Size{}, err
		}
	} else {
		for i := range 3 {
			if err := t.readSplit(tr, i, count(i)); err != nil {
				return Size{}, err
			}
		}
		if t.align != "" {
			if _, _, err := readGold(t.align, t.alignBase, lens, t.format.Reverse); err != nil {
				return Size{}, err
			}
		}
	}
	s := Size{Train: pairs[0], Dev: pairs[1], Test: pairs[2], MaxSrc: longest[0], MaxTgt: longest[1]}
	all := pairs[0] + pairs[1] + pairs[2]
	if t.path != "" {
		s.Test = int(math.Round(t.test * float64(all)))
		s.Dev = int(math.Round(t.dev * float64(all)))
		s.Train = max(all-s.Test-s.Dev, 0)
	}
	if all > 0 {
		s.MeanSrc, s.MeanTgt = float64(tokens[0])/float64(all), float64(tokens[1])/float64(all)
	}
	vocab := [2]*int{&s.SrcVocab, &s.TgtVocab}
	held := float64(bytesPerTokenHeld*(tokens[0]+tokens[1]) + bytesPerPair*all)
	if t.path != "" {
		held += float64(bytesPerRandPair * all)
	}
	for i := range 2 {
		n := 0
		for id, c := range counts[i] {
			if int(c) >= t.minCount && !slices.Contains(specials[:], tr.tab[i].types[id]) {
				n++
			}
		}
		if t.maxVoc > 0 {
			n = min(n, t.maxVoc)
		}
		*vocab[i] = n
		for _, tok := range tr.tab[i].types {
			held += float64(bytesPerType + len(tok))
		}
	}
	s.DataBytes = int64(held)
	return s, nil
}
