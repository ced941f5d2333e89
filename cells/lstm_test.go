package cells_test

import (
	"math"
	"testing"

	"github.com/attnzoo/attnzoo/cells"
	"github.com/attnzoo/attnzoo/initializers"
	"github.com/attnzoo/attnzoo/internal/gx"
)

// TestLSTM pins one LSTM step (H = 2, batch 2, inputs x0 or x0 and x1,
// state h0, c0 from reference_test.go) against the plain-Go reference
// refLSTM on fixed small weights, and against values stated below on
// weights simple enough to follow by hand.
func TestLSTM(t *testing.T) {
	ln3 := math.Log(3)
	th := math.Tanh
	for _, tc := range []struct {
		name       string
		inputs     int
		i, f, g, o gate
		wantH      []float64 // nil: refLSTM's
		wantC      []float64
	}{
		{name: "one input", inputs: 1, i: smallGate(1, 2, []int{2}), f: smallGate(2, 2, []int{2}),
			g: smallGate(3, 2, []int{2}), o: smallGate(4, 2, []int{2})},
		{name: "two inputs", inputs: 2, i: smallGate(1, 2, []int{2, 1}), f: smallGate(2, 2, []int{2, 1}),
			g: smallGate(3, 2, []int{2, 1}), o: smallGate(4, 2, []int{2, 1})},
		// Zero weights, biases only: i = o = σ(0) = ½, f = σ(ln 3) = ¾,
		// g = tanh(ln 3, 0) = ((9−1)/(9+1), 0) = (0.8, 0).
		// c = (1, −1), (0.4, 2):  c' = ¾ c + ½ g = (1.15, −0.75), (0.7, 1.5);
		// h' = ½ tanh(c').
		{name: "biases only", inputs: 2, i: zeroGate(2, []int{2, 1}, 0, 0), f: zeroGate(2, []int{2, 1}, ln3, ln3),
			g: zeroGate(2, []int{2, 1}, ln3, 0), o: zeroGate(2, []int{2, 1}, 0, 0),
			wantC: []float64{1.15, -0.75, 0.7, 1.5},
			wantH: []float64{th(1.15) / 2, th(-0.75) / 2, th(0.7) / 2, th(1.5) / 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			xs, sizes := inputsOf(tc.inputs)
			c := newCell(t, "lstm", cells.Config{Inputs: sizes, Hidden: 2})
			setGates(t, c, tc.i, tc.f, tc.g, tc.o)
			wantH, wantC := tc.wantH, tc.wantC
			if wantH == nil {
				hh, cc := refLSTM(tc.i, tc.f, tc.g, tc.o, xs, h0, c0)
				wantH, wantC = flat(hh), flat(cc)
			}
			h, c1 := unroll(t, c, gx.Float64, 2, [][][]float64{flats(xs)}, flat(h0), flat(c0))
			closeTo(t, "h'", h, wantH, 1e-14)
			closeTo(t, "c'", c1, wantC, 1e-14)
		})
	}
}

// TestLSTMReferenceSteps runs several steps on random weights and inputs,
// at the hidden sizes of stackedSizes.
func TestLSTMReferenceSteps(t *testing.T) { stackedSizes(t, testLSTMReferenceSteps) }

func testLSTMReferenceSteps(t *testing.T, H int) {
	const B, T = 3, 5
	sizes := []int{3, 2}
	rng := newRand(12)
	c := newCell(t, "lstm", cells.Config{Inputs: sizes, Hidden: H})
	gi, gf, gg, go_ := randGate(rng, H, sizes), randGate(rng, H, sizes), randGate(rng, H, sizes), randGate(rng, H, sizes)
	setGates(t, c, gi, gf, gg, go_)
	h, cc := randMat(rng, B, H), randMat(rng, B, H)
	h1, c1 := flat(h), flat(cc)
	steps := make([][][]float64, T)
	for i := range steps {
		xs := [][][]float64{randMat(rng, B, sizes[0]), randMat(rng, B, sizes[1])}
		steps[i] = flats(xs)
		h, cc = refLSTM(gi, gf, gg, go_, xs, h, cc)
	}
	gotH, gotC := unroll(t, c, gx.Float64, B, steps, h1, c1)
	closeTo(t, "h_T", gotH, flat(h), 1e-13)
	closeTo(t, "c_T", gotC, flat(cc), 1e-13)
}

// TestLSTMInit checks the documented initialisation: the forget gate's
// block of b is 1 under any scheme; the rest of b is a draw from U(±1/√H)
// under the default ("pytorch") and zero under "glorot"; the matrices lie
// in ±1/√H under the default.
func TestLSTMInit(t *testing.T) {
	const H = 5
	glorot, _ := initializers.Parse("glorot")
	c := newCell(t, "lstm", cells.Config{Inputs: []int{3}, Hidden: H, Prefix: "dec."})
	g := newCell(t, "lstm", cells.Config{Inputs: []int{3}, Hidden: H, Prefix: "dec.", Init: initializers.Scheme{Embed: glorot, Weights: glorot}})
	for k, x := range g.Params()[2].Float64s() {
		want := 0.0
		if k >= H && k < 2*H {
			want = 1
		}
		if x != want {
			t.Errorf("glorot: b[%d] = %v, want %v (gates i, f, g, o; forget bias 1)", k, x, want)
		}
	}
	for _, p := range c.Params() {
		v := p.Float64s()
		switch p.Name {
		case "dec.b":
			for k, x := range v {
				forget := k >= H && k < 2*H
				if forget && x != 1 || !forget && (math.Abs(x) > 1/math.Sqrt(H) || x == 0) {
					t.Errorf("b[%d] = %v, want 1 in the forget block (gates i, f, g, o), else a draw from U(±1/√%d)", k, x, H)
				}
			}
		case "dec.W_0", "dec.U":
			for k, x := range v {
				if math.Abs(x) > 1/math.Sqrt(H) || x == 0 {
					t.Errorf("%s[%d] = %v, want a draw from U(±1/√%d)", p.Name, k, x, H)
				}
			}
		default:
			t.Errorf("unexpected parameter %s", p.Name)
		}
	}
}
