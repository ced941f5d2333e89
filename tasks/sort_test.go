package tasks

import (
	"slices"
	"strconv"
	"testing"
)

func TestSortTarget(t *testing.T) {
	tests := []struct {
		name  string
		src   []int
		tgt   []int
		links string // Pharaoh src-tgt
	}{
		// The two 1s keep their source order: target 0 is source 1, target 1 source 3.
		{"duplicates stable", []int{3, 1, 2, 1}, []int{1, 1, 2, 3}, "1-0 3-1 2-2 0-3"},
		{"sorted already", []int{0, 1, 2}, []int{0, 1, 2}, "0-0 1-1 2-2"},
		{"by number, not by string", []int{10, 2, 11}, []int{2, 10, 11}, "1-0 0-1 2-2"},
		{"all equal", []int{5, 5, 5}, []int{5, 5, 5}, "0-0 1-1 2-2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tgt, links := sortTarget(tt.src)
			if !slices.Equal(tgt, tt.tgt) {
				t.Errorf("target %v, want %v", tgt, tt.tgt)
			}
			if got := pharaoh(links); got != tt.links {
				t.Errorf("links %s, want %s", got, tt.links)
			}
		})
	}
}

func TestSort(t *testing.T) {
	d := load(t, "sort", Options{"vocab": 15, "max_len": 12, "train": 300, "dev": 30, "test": 30}, 9)
	for split, exs := range splits(d) {
		for i, ex := range exs {
			n := len(ex.Src)
			if !isPermutation(ex.Sure, n) {
				t.Fatalf("%s[%d]: links %v are not a permutation of %d", split, i, ex.Sure, n)
			}
			for _, l := range ex.Sure {
				if ex.Tgt[l.Tgt] != ex.Src[l.Src] {
					t.Fatalf("%s[%d]: link %v joins %q and %q", split, i, l, ex.Src[l.Src], ex.Tgt[l.Tgt])
				}
			}
			num := func(j int) int { k, _ := strconv.Atoi(ex.Tgt[j]); return k }
			for j := 1; j < n; j++ {
				if num(j-1) > num(j) {
					t.Fatalf("%s[%d]: target %v is not in numeric order", split, i, ex.Tgt)
				}
				// Equal tokens keep their source order.
				if num(j-1) == num(j) && ex.Sure[j-1].Src > ex.Sure[j].Src {
					t.Fatalf("%s[%d]: equal tokens swapped: %v", split, i, ex.Sure)
				}
			}
		}
	}
}
