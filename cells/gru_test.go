package cells_test

import (
	"math"
	"testing"

	"github.com/attnzoo/attnzoo/cells"
	"github.com/attnzoo/attnzoo/internal/gx"
)

// TestGRU pins one GRU step (H = 2, batch 2, inputs x0 or x0 and x1 from
// reference_test.go) against the plain-Go reference refGRU on fixed small
// weights, and against values stated below on weights simple enough to
// follow by hand.
func TestGRU(t *testing.T) {
	ln3, t1 := math.Log(3), math.Tanh(1)
	h := h0 // (0.5, 0), (−1, 1)
	for _, tc := range []struct {
		name    string
		inputs  int
		r, z, n gate
		bhn     []float64
		want    []float64 // nil: refGRU's
	}{
		{name: "one input", inputs: 1, r: smallGate(1, 2, []int{2}), z: smallGate(2, 2, []int{2}),
			n: smallGate(3, 2, []int{2}), bhn: []float64{0.3, -0.2}},
		{name: "two inputs", inputs: 2, r: smallGate(1, 2, []int{2, 1}), z: smallGate(2, 2, []int{2, 1}),
			n: smallGate(3, 2, []int{2, 1}), bhn: []float64{0.3, -0.2}},
		// Zero weights, biases only: r = σ(0) = ½ and z = σ(0) = ½ everywhere;
		// n = tanh(b_n + r·b_hn) = tanh((0.5, −1) + ½·(1, 2)) = (tanh 1, 0);
		// h' = ½ n + ½ h.
		{name: "biases only", inputs: 2, r: zeroGate(2, []int{2, 1}, 0, 0), z: zeroGate(2, []int{2, 1}, 0, 0),
			n: zeroGate(2, []int{2, 1}, 0.5, -1), bhn: []float64{1, 2},
			want: []float64{(t1 + 0.5) / 2, 0, (t1 - 1) / 2, 0.5}},
		// As above with b_z = (ln 3, 0): z = (σ(ln 3), ½) = (¾, ½), so unit 0
		// is h' = ¼ tanh 1 + ¾ h.
		{name: "update gate", inputs: 1, r: zeroGate(2, []int{2}, 0, 0), z: zeroGate(2, []int{2}, ln3, 0),
			n: zeroGate(2, []int{2}, 0.5, -1), bhn: []float64{1, 2},
			want: []float64{t1/4 + 0.75*0.5, 0, t1/4 - 0.75, 0.5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			xs, sizes := inputsOf(tc.inputs)
			c := newCell(t, "gru", cells.Config{Inputs: sizes, Hidden: 2})
			setGates(t, c, tc.r, tc.z, tc.n)
			setParam(t, c, "b_hn", tc.bhn)
			want := tc.want
			if want == nil {
				want = flat(refGRU(tc.r, tc.z, tc.n, tc.bhn, xs, h))
			}
			got, _ := unroll(t, c, gx.Float64, 2, [][][]float64{flats(xs)}, flat(h), nil)
			closeTo(t, "h'", got, want, 1e-14)
		})
	}
}

// TestGRUReferenceSteps runs several steps on random weights and inputs,
// at the hidden sizes of stackedSizes.
func TestGRUReferenceSteps(t *testing.T) { stackedSizes(t, testGRUReferenceSteps) }

func testGRUReferenceSteps(t *testing.T, H int) {
	const B, T = 3, 5
	sizes := []int{3, 2}
	rng := newRand(11)
	c := newCell(t, "gru", cells.Config{Inputs: sizes, Hidden: H})
	r, z, n := randGate(rng, H, sizes), randGate(rng, H, sizes), randGate(rng, H, sizes)
	bhn := randMat(rng, 1, H)[0]
	setGates(t, c, r, z, n)
	setParam(t, c, "b_hn", bhn)
	h := randMat(rng, B, H)
	steps := make([][][]float64, T)
	want := h
	for i := range steps {
		xs := [][][]float64{randMat(rng, B, sizes[0]), randMat(rng, B, sizes[1])}
		steps[i] = flats(xs)
		want = refGRU(r, z, n, bhn, xs, want)
	}
	got, _ := unroll(t, c, gx.Float64, B, steps, flat(h), nil)
	closeTo(t, "h_T", got, flat(want), 1e-13)
}
