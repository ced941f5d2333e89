package tasks

import (
	"cmp"
	"slices"

	"github.com/attnzoo/attnzoo/metrics"
)

// The sort task: the target is the source sorted by token number (so "2"
// comes before "10"). Each target position links to the source position its
// token came from; equal tokens keep their source order, so the links are a
// permutation. Keys: min_len, max_len, test_max_len, vocab, train, dev, test
// (see seqOptions).
func init() { Register("sort", seqFactory("sort", sortTarget)) }

func sortTarget(src []int) ([]int, []metrics.Link) {
	from := make([]int, len(src)) // from[t] is the source position of target t
	for i := range from {
		from[i] = i
	}
	slices.SortStableFunc(from, func(a, b int) int { return cmp.Compare(src[a], src[b]) })
	tgt := make([]int, len(src))
	links := make([]metrics.Link, len(src))
	for t, s := range from {
		tgt[t] = src[s]
		links[t] = metrics.Link{Src: s, Tgt: t}
	}
	return tgt, links
}
