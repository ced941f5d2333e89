package tasks

import "github.com/attnzoo/attnzoo/metrics"

// The copy task: the target is the source; the gold links are the diagonal,
// i-i. Keys: min_len, max_len, test_max_len, vocab, train, dev, test (see seqOptions).
func init() { Register("copy", seqFactory("copy", copyTarget)) }

func copyTarget(src []int) ([]int, []metrics.Link) {
	tgt := make([]int, len(src))
	links := make([]metrics.Link, len(src))
	for i, x := range src {
		tgt[i] = x
		links[i] = metrics.Link{Src: i, Tgt: i}
	}
	return tgt, links
}
