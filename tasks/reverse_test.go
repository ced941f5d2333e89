package tasks

import (
	"slices"
	"testing"

	"github.com/attnzoo/attnzoo/metrics"
)

func TestReverseTarget(t *testing.T) {
	// [4 0 7] reversed is [7 0 4]: target 0 comes from source 2, and so on.
	tgt, links := reverseTarget([]int{4, 0, 7})
	if !slices.Equal(tgt, []int{7, 0, 4}) {
		t.Errorf("target %v, want [7 0 4]", tgt)
	}
	if got := pharaoh(links); got != "2-0 1-1 0-2" {
		t.Errorf("links %s, want 2-0 1-1 0-2", got)
	}
}

func TestReverse(t *testing.T) {
	d := load(t, "reverse", Options{"min_len": 1, "max_len": 8, "train": 300, "dev": 30, "test": 30}, 5)
	for split, exs := range splits(d) {
		for i, ex := range exs {
			n := len(ex.Src)
			want := slices.Clone(ex.Src)
			slices.Reverse(want)
			if !slices.Equal(ex.Tgt, want) {
				t.Fatalf("%s[%d]: target %v is not the reversed source %v", split, i, ex.Tgt, ex.Src)
			}
			// The links are exactly the anti-diagonal {(n-1-j, j)}.
			anti := make([]metrics.Link, n)
			for j := range n {
				anti[j] = metrics.Link{Src: n - 1 - j, Tgt: j}
			}
			if !slices.Equal(ex.Sure, anti) {
				t.Fatalf("%s[%d]: links %v, want the anti-diagonal %v", split, i, ex.Sure, anti)
			}
		}
	}
}
