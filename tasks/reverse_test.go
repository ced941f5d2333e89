package tasks

import (
	"slices"
	"strings"
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

// TestTestMinLen: with test_min_len = max_len + 1 the test split holds only
// lengths never trained on (11–20 here), train and dev stay in [3, 10];
// a test_min_len below min_len or above test_max_len is refused.
func TestTestMinLen(t *testing.T) {
	d := load(t, "reverse", Options{"min_len": 3, "max_len": 10, "test_max_len": 20, "test_min_len": 11, "train": 200, "dev": 20, "test": 200}, 1)
	seen := map[int]bool{}
	for _, ex := range d.Test {
		if n := len(ex.Src); n < 11 || n > 20 {
			t.Fatalf("test source of %d tokens, want 11–20", n)
		}
		seen[len(ex.Src)] = true
	}
	if len(seen) != 10 {
		t.Errorf("test lengths %v: want all of 11–20 among 200 draws", seen)
	}
	for _, ex := range append(append([]Example(nil), d.Train...), d.Dev...) {
		if n := len(ex.Src); n < 3 || n > 10 {
			t.Fatalf("train/dev source of %d tokens, want 3–10", n)
		}
	}
	for _, o := range []Options{{"min_len": 3, "test_min_len": 2}, {"max_len": 10, "test_max_len": 12, "test_min_len": 13}} {
		if got := newErr(t, "reverse", o); !strings.Contains(got, "test_min_len") {
			t.Errorf("%v: %q, want an error naming test_min_len", o, got)
		}
	}
}
