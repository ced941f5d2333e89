package tasks

import (
	"reflect"
	"strconv"
	"testing"

	"github.com/attnzoo/attnzoo/metrics"
)

func TestCopy(t *testing.T) {
	d := load(t, "copy", Options{"min_len": 2, "max_len": 6, "vocab": 12, "train": 300, "dev": 30, "test": 30}, 1)
	for split, exs := range splits(d) {
		for i, ex := range exs {
			n := len(ex.Src)
			if n < 2 || n > 6 {
				t.Fatalf("%s[%d]: length %d outside [2, 6]", split, i, n)
			}
			if !reflect.DeepEqual(ex.Tgt, ex.Src) {
				t.Fatalf("%s[%d]: target %v is not the source %v", split, i, ex.Tgt, ex.Src)
			}
			for j, l := range ex.Sure {
				if l != (metrics.Link{Src: j, Tgt: j}) {
					t.Fatalf("%s[%d]: link %d is %v, not on the diagonal", split, i, j, l)
				}
			}
			if len(ex.Sure) != n || ex.Possible != nil {
				t.Fatalf("%s[%d]: %d sure links (want %d), possible %v (want nil)", split, i, len(ex.Sure), n, ex.Possible)
			}
			for _, tok := range ex.Src {
				if k, err := strconv.Atoi(tok); err != nil || k < 0 || k >= 12 {
					t.Fatalf("%s[%d]: token %q is not one of 0..11", split, i, tok)
				}
			}
		}
	}
}

func TestSeqSizesAndLengths(t *testing.T) {
	for _, name := range []string{"copy", "reverse", "sort"} {
		t.Run(name, func(t *testing.T) {
			d := load(t, name, Options{"min_len": 3, "max_len": 5, "test_max_len": 9, "train": 150, "dev": 40, "test": 120}, 2)
			if len(d.Train) != 150 || len(d.Dev) != 40 || len(d.Test) != 120 {
				t.Fatalf("sizes %d/%d/%d, want 150/40/120", len(d.Train), len(d.Dev), len(d.Test))
			}
			// Train and dev stay within [3, 5]; test draws from [3, 9], so
			// 120 draws reach 9 unless the seed is extraordinarily unlucky
			// ((6/7)^120 ≈ 1e-8).
			longest := map[string]int{}
			for split, exs := range splits(d) {
				for _, ex := range exs {
					longest[split] = max(longest[split], len(ex.Src))
					if len(ex.Src) < 3 {
						t.Fatalf("%s: length %d < min_len 3", split, len(ex.Src))
					}
				}
			}
			if longest["train"] != 5 || longest["dev"] > 5 || longest["test"] != 9 {
				t.Errorf("longest sources: %v, want train 5, dev <= 5, test 9", longest)
			}
		})
	}
}

func TestSeqTokenize(t *testing.T) {
	task, _ := New("copy", nil)
	got := task.(Tokenizer).Tokenize(" 3 1\t10  2 ")
	if want := []string{"3", "1", "10", "2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Tokenize = %q, want %q", got, want)
	}
}
