package tasks

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/attnzoo/attnzoo/metrics"
)

// grouper groups pairs by their source sentence. Sentences are told
// apart by a 64-bit hash of their tokens (FNV-1a over the type ids' bytes)
// and grouped by sorting: 8 bytes a pair while reading, no hash table.
type grouper struct {
	hash chunked[uint64] // pair p's source's
}

// add records the next pair's source (type ids).
func (g *grouper) add(src []uint32) {
	h := uint64(14695981039346656037)
	for _, id := range src {
		for k := 0; k < 32; k += 8 {
			h ^= uint64(byte(id >> k))
			h *= 1099511628211
		}
	}
	g.hash.push(h)
}

// split numbers the source sentences in order of first appearance,
// shuffles them with seed and cuts them into test, dev and train
// (round(test × sentences) and round(dev × sentences) of them), returning
// each split's pairs: sentence by sentence in shuffled order, each
// sentence's pairs in file order.
func (g *grouper) split(ctx context.Context, seed int64, dev, test float64) ([3][]uint32, error) {
	var out [3][]uint32
	// the pairs sorted by their source's hash, then in file order: each
	// sentence's pairs are a run
	order := make([]uint32, g.hash.n)
	for p := range order {
		order[p] = uint32(p)
	}
	slices.SortFunc(order, func(a, b uint32) int {
		return cmp.Or(cmp.Compare(g.hash.at(int(a)), g.hash.at(int(b))), cmp.Compare(a, b))
	})
	var start []uint32 // where each run starts in order, and its end
	for i, p := range order {
		if i == 0 || g.hash.at(int(p)) != g.hash.at(int(order[i-1])) {
			start = append(start, uint32(i))
		}
	}
	start = append(start, uint32(len(order)))
	g.hash = chunked[uint64]{}
	if err := ctx.Err(); err != nil {
		return out, err
	}
	// the runs in order of their sentences' first appearance (a run's
	// first pair is its earliest)
	n := len(start) - 1
	runs := make([]uint32, n)
	for r := range runs {
		runs[r] = uint32(r)
	}
	slices.SortFunc(runs, func(a, b uint32) int { return cmp.Compare(order[start[a]], order[start[b]]) })
	nTest := int(math.Round(test * float64(n)))
	nDev := int(math.Round(dev * float64(n)))
	if nTest+nDev >= n {
		return out, fmt.Errorf("%d source sentences leave none to train on after dev %v and test %v", n, dev, test)
	}
	splitRand(seed, 0).Shuffle(n, func(i, j int) { runs[i], runs[j] = runs[j], runs[i] })
	cut := [3][2]int{{nTest + nDev, n}, {nTest, nTest + nDev}, {0, nTest}} // train, dev, test
	for i, c := range cut {
		size := 0
		for _, r := range runs[c[0]:c[1]] {
			size += int(start[r+1] - start[r])
		}
		out[i] = make([]uint32, 0, size)
		for _, r := range runs[c[0]:c[1]] {
			out[i] = append(out[i], order[start[r]:start[r+1]]...)
		}
	}
	return out, nil
}

// buildVocab builds side s's vocabulary from the training split's tokens
// as BuildVocab does (at least minCount occurrences, most frequent first,
// ties in lexicographic order, at most maxSize unless 0, the specials not
// counted) and maps every type to its id.
func (t *Packed) buildVocab(ctx context.Context, s, minCount, maxSize int) (*Vocab, error) {
	side := &t.side[s]
	counts := make([]uint32, len(side.types))
	for i, p := range t.split[0] {
		if i%checkEvery == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		lo, hi := side.span(int(p))
		for k := lo; k < hi; k++ {
			counts[side.ids.at(k)]++
		}
	}
	toks := make([]uint32, 0, len(counts))
	for id, n := range counts {
		if int(n) >= minCount && !slices.Contains(specials[:], side.types[id]) {
			toks = append(toks, uint32(id))
		}
	}
	slices.SortFunc(toks, func(a, b uint32) int {
		if counts[a] != counts[b] {
			return int(counts[b]) - int(counts[a])
		}
		return strings.Compare(side.types[a], side.types[b])
	})
	if maxSize > 0 && len(toks) > maxSize {
		toks = toks[:maxSize]
	}
	words := make([]string, len(toks))
	for i, id := range toks {
		words[i] = side.types[id]
	}
	v := NewVocab(words)
	side.vocab = make([]int32, len(side.types))
	for id, tok := range side.types {
		side.vocab[id] = int32(v.ID(tok))
	}
	return v, nil
}

// readGold reads a gold alignment file, one line per test pair whose
// source and target lengths are lens: links as metrics.ParseGoldBase reads
// them (i-j sure, ipj possible, …), with indices from base (0 or 1),
// source first unless reverse (a
// TSV read with its columns swapped). A link outside its pair, a bad token
// or a line count unlike the pairs' is an error naming the file and line.
func readGold(path string, base int, lens [][2]int, reverse bool) (sure, possible [][]metrics.Link, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("tasks: tsv: test_align: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	n := 0
	for sc.Scan() {
		n++
		if n > len(lens) {
			return nil, nil, fmt.Errorf("tasks: tsv: test_align: %s:%d: more lines than the test split's %d pairs", path, n, len(lens))
		}
		s, p, err := metrics.ParseGoldBase(sc.Text(), base)
		if err != nil {
			return nil, nil, fmt.Errorf("tasks: tsv: test_align: %s:%d: %w", path, n, err)
		}
		for _, links := range [2][]metrics.Link{s, p} {
			for j, l := range links {
				if reverse {
					l.Src, l.Tgt = l.Tgt, l.Src
				}
				if l.Src >= lens[n-1][0] || l.Tgt >= lens[n-1][1] {
					return nil, nil, fmt.Errorf("tasks: tsv: test_align: %s:%d: link %s is outside the test pair's %d source and %d target tokens (indices from %d)",
						path, n, metrics.FormatPharaohBase([]metrics.Link{links[j]}, base), lens[n-1][0], lens[n-1][1], base)
				}
				links[j] = l
			}
			sortLinks(links)
		}
		if s == nil {
			s = []metrics.Link{}
		}
		sure = append(sure, s)
		if p != nil {
			p = append(p, s...)
			sortLinks(p)
		}
		possible = append(possible, p)
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("tasks: tsv: test_align: %s:%d: %w", path, n+1, err)
	}
	if n != len(lens) {
		return nil, nil, fmt.Errorf("tasks: tsv: test_align: %s has %d lines, the test split %d pairs: one line per pair", path, n, len(lens))
	}
	return sure, possible, nil
}
