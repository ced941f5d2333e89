package device

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/attnzoo/attnzoo/internal/backend"
)

// TestBackendOuter: Outer with two heads, written and added into a buffer
// (the host machine's fused sum of Outers; outer_heads_acc on the device),
// on the cpu backend and the OpenCL one. B = 1, S = 2, D = 4, h = 2 (head
// k(d) = d/2), c = 0.5, w [2,2] = [[1, 2], [3, −1]], v = [1, 2, 3, 4]:
//
//	y[i,d] = (c·w[k(d),i])·v[d]
//	i = 0: 0.5·1 = 0.5 → 0.5, 1;   0.5·3 = 1.5 → 4.5, 6
//	i = 1: 0.5·2 = 1   → 1, 2;     0.5·−1 = −0.5 → −1.5, −2
//
// and added to y₀[i,d] = 10i + d: [0.5, 2, 6.5, 9, 11, 13, 10.5, 11]
// (every value exact in float32).
func TestBackendOuter(t *testing.T) {
	w, v := []float32{1, 2, 3, -1}, []float32{1, 2, 3, 4}
	y0 := []float32{0, 1, 2, 3, 10, 11, 12, 13}
	want := map[bool][]float32{
		false: {0.5, 1, 4.5, 6, 1, 2, -1.5, -2},
		true:  {0.5, 2, 6.5, 9, 11, 13, 10.5, 11},
	}
	for _, be := range backends(t) {
		for _, acc := range []bool{false, true} {
			y := put(t, be, y0)
			if err := be.Outer(y, put(t, be, w), put(t, be, v), 1, 2, 4, 2, 0.5, acc); err != nil {
				t.Fatalf("%s: %v", be.Name(), err)
			}
			got := get(t, be, y)
			for i := range got {
				if got[i] != want[acc][i] {
					t.Errorf("%s acc=%v: y = %v, want %v", be.Name(), acc, got, want[acc])
					break
				}
			}
		}
	}
}

// TestBackendColSums: the column sums of the bias gradients (SumRows, and
// ColSums on a block of a wider matrix) in sum_rows_at's work-groups, on
// sizes around its tile of 8 columns and its WG/8 row lanes.
//
// By hand, with integer values (every partial sum exact in float32, so any
// order gives the same): x[r,c] = (r mod 3) − 1 + c over rows = 1000 has
// Σ_r (r mod 3) = 333·1 + 333·2 = 999 (r ≡ 0: 334 rows, ≡ 1 and ≡ 2: 333
// each), so y[c] = 999 − 1000 + 1000c = 1000c − 1; added into y₀[c] = 0.5,
// 1000c − 0.5. Then random values against a float64 sum, within
// 1e-6·Σ_r|x[r,c]| (float32 rounding grows with log₂(rows) in a tree, with
// rows in a sequential sum; the bound allows 16 roundings of the total),
// and the same bits from a second run (the order is fixed).
func TestBackendColSums(t *testing.T) {
	be := testOpenCL(t).Backend()
	put := func(x []float32) backend.Buf { return put(t, be, x) }
	get := func(b backend.Buf) []float32 { return get(t, be, b) }

	const rows, cols = 1000, 37
	x := make([]float32, rows*cols)
	for r := range rows {
		for c := range cols {
			x[r*cols+c] = float32(r%3 - 1 + c)
		}
	}
	for _, acc := range []bool{false, true} {
		y := put(slices.Repeat([]float32{0.5}, cols))
		if err := be.ColSums(y, 0, put(x), 0, cols, rows, cols, acc); err != nil {
			t.Fatal(err)
		}
		for c, v := range get(y) {
			want := float32(1000*c) - 1
			if acc {
				want += 0.5
			}
			if v != want {
				t.Fatalf("ColSums acc=%v: y[%d] = %v, want %v", acc, c, v, want)
			}
		}
	}

	r := rand.New(rand.NewPCG(25, 1))
	for _, sz := range [][2]int{{1, 1}, {3, 5}, {7, 8}, {64, 9}, {129, 37}, {2000, 3}, {5, 300}} {
		rows, cols := sz[0], sz[1]
		// ColSums of columns [cols, 2·cols) of a [rows, 3·cols] matrix
		// starting at value 2, into y at offset 1.
		ld := 3 * cols
		x := randFloats(r, 2+rows*ld, 1)
		want := make([]float64, cols)
		bound := make([]float64, cols)
		for i := range rows {
			for c := range cols {
				v := float64(x[2+i*ld+cols+c])
				want[c] += v
				bound[c] += math.Abs(v)
			}
		}
		xb := put(x)
		var first []float32
		for run := range 2 {
			y := put(make([]float32, cols+1))
			if err := be.ColSums(y, 1, xb, 2+cols, ld, rows, cols, false); err != nil {
				t.Fatal(err)
			}
			got := get(y)
			if got[0] != 0 {
				t.Errorf("ColSums %dx%d wrote y[0] = %v before its offset", rows, cols, got[0])
			}
			got = got[1:]
			for c := range cols {
				if d := math.Abs(float64(got[c]) - want[c]); d > 1e-6*bound[c] {
					t.Fatalf("ColSums %dx%d: y[%d] = %v, float64 %v (|Δ| %.3g > %.3g)", rows, cols, c, got[c], want[c], d, 1e-6*bound[c])
				}
			}
			if run == 0 {
				first = got
			} else if !slices.Equal(got, first) {
				t.Errorf("ColSums %dx%d: a second run gave %v, the first %v", rows, cols, got, first)
			}
		}
	}
}
