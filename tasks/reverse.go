package tasks

import "github.com/attnzoo/attnzoo/metrics"

// The reverse task: the target is the source reversed; target position i
// holds source position n-1-i, so the gold links are the anti-diagonal.
// Keys: min_len, max_len, test_max_len, vocab, train, dev, test (see seqOptions).
func init() { Register("reverse", seqFactory("reverse", reverseTarget)) }

func reverseTarget(src []int) ([]int, []metrics.Link) {
	n := len(src)
	tgt := make([]int, n)
	links := make([]metrics.Link, n)
	for i := range n {
		tgt[i] = src[n-1-i]
		links[i] = metrics.Link{Src: n - 1 - i, Tgt: i}
	}
	return tgt, links
}
