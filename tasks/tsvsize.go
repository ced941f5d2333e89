package tasks

import (
	"context"
	"fmt"
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
		dropped int         // training pairs max_len drops
		longAt  [2]string   // where each side's longest is: file:line
		longKey [2]string   // the option naming that file
	)
	// count counts a pair of split i (3: path, counted as training)
	count := func(i int) func(src, tgt []uint32) error {
		return func(src, tgt []uint32) error {
			if t.tooLong(i, src, tgt) {
				dropped++
				return nil
			}
			split := i % 3
			pairs[split]++
			for side, ids := range [2][]uint32{src, tgt} {
				tokens[side] += len(ids)
				if len(ids) > longest[side] {
					longest[side] = len(ids)
					p := tr.at
					longAt[side], longKey[side] = fmt.Sprintf("%s:%d", p.names[side], p.line), p.key
				}
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
	long := 0
	if longest[1] > longest[0] {
		long = 1
	}
	s.Longest, s.LongestKey = longAt[long], longKey[long]
	all := pairs[0] + pairs[1] + pairs[2]
	if t.path != "" {
		s.Test = int(math.Round(t.test * float64(all)))
		s.Dev = int(math.Round(t.dev * float64(all)))
		s.Train = max(all-s.Test-s.Dev, 0)
	}
	if err := t.checkEmpty(s, all, dropped); err != nil {
		return Size{}, err
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
			if int(c) >= t.minCount[i] && !slices.Contains(specials[:], tr.tab[i].types[id]) {
				n++
			}
		}
		if t.maxVoc[i] > 0 {
			n = min(n, t.maxVoc[i])
		}
		*vocab[i] = n
		for _, tok := range tr.tab[i].types {
			held += float64(bytesPerType + len(tok))
		}
	}
	s.DataBytes = int64(held)
	return s, nil
}

// checkEmpty refuses a split that would hold no pairs (s as scan counts
// it; all pairs kept, dropped by max_len): every split is needed, dev for
// the evaluations during training and test for the final scores. With
// fixed splits it names the split's file; with one file split at random,
// the fraction that rounds to nothing (the pairs counted bound the source
// sentences Load splits from, so no split Load fills is refused).
func (t *tsvTask) checkEmpty(s Size, all, dropped int) error {
	names := [3]string{"training", "dev", "test"}
	if t.path != "" {
		if all == 0 {
			return t.emptyErr(3, "holds no pairs", dropped)
		}
		for i, n := range [3]int{s.Train, s.Dev, s.Test} {
			if n == 0 {
				return &DataError{Task: "tsv", Key: splitKeys[min(i, 2)], File: t.path,
					Msg: fmt.Sprintf("%d pairs leave the %s split empty (dev = %v, test = %v): every split needs some", all, names[i], t.dev, t.test)}
			}
		}
		return nil
	}
	for i, n := range [3]int{s.Train, s.Dev, s.Test} {
		if n == 0 {
			return t.emptyErr(i, fmt.Sprintf("the %s split holds no pairs: every split needs some (dev is evaluated during training, test at the end)", names[i]), dropped)
		}
	}
	return nil
}

// emptyErr is the error of split i's file holding no pairs.
func (t *tsvTask) emptyErr(i int, msg string, dropped int) error {
	file := [4]string{t.files[0], t.files[1], t.files[2], t.path}[i]
	if t.pair[i] {
		file = file + "." + t.srcLang + " and " + file + "." + t.tgtLang
	}
	if (i == 0 || i == 3) && dropped > 0 {
		msg += fmt.Sprintf(" (max_len %d dropped all %d, longer than it)", t.maxLen, dropped)
	}
	return &DataError{Task: "tsv", Key: splitKeys[i], File: file, Msg: msg}
}
