package cells_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gorgonia.org/tensor"

	"github.com/attnzoo/attnzoo/cells"
	"github.com/attnzoo/attnzoo/internal/gx"
)

// The reference cells below are plain float64 Go: loops, math.Tanh and
// 1/(1+e^−x), one weight matrix per gate and per input, written from the
// equations in the cells' doc comments (PyTorch's nn.GRU / nn.LSTM). They
// share no code with gorgonia or with package cells, so agreement checks the
// cells' maths, their stacked weight layout and gorgonia's ops together.

// gate holds one gate's weights: W[j] [H][In_j] for each input, U [H][H], b [H].
type gate struct {
	W [][][]float64
	U [][]float64
	b []float64
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// affine returns, for each batch row, Σ_j W[j] x_j (+ U h if withU) + b.
// xs[j] is [B][In_j], h is [B][H].
func (w gate) affine(xs [][][]float64, h [][]float64, withU bool) [][]float64 {
	B, H := len(h), len(w.b)
	out := make([][]float64, B)
	for r := 0; r < B; r++ {
		out[r] = make([]float64, H)
		for k := 0; k < H; k++ {
			s := w.b[k]
			for j, x := range xs {
				for d, v := range x[r] {
					s += w.W[j][k][d] * v
				}
			}
			if withU {
				for d, v := range h[r] {
					s += w.U[k][d] * v
				}
			}
			out[r][k] = s
		}
	}
	return out
}

// refGRU is one nn.GRU step: r, z, n as in GRU's doc comment.
func refGRU(r, z, n gate, bhn []float64, xs [][][]float64, h [][]float64) [][]float64 {
	ar, az, an := r.affine(xs, h, true), z.affine(xs, h, true), n.affine(xs, h, false)
	un := gate{U: n.U, b: bhn}.affine(nil, h, true) // U_n h + b_hn
	out := make([][]float64, len(h))
	for b := range h {
		out[b] = make([]float64, len(h[b]))
		for k := range h[b] {
			rr, zz := sigmoid(ar[b][k]), sigmoid(az[b][k])
			nn := math.Tanh(an[b][k] + rr*un[b][k])
			out[b][k] = (1-zz)*nn + zz*h[b][k]
		}
	}
	return out
}

// refLSTM is one nn.LSTM step: i, f, g, o as in LSTM's doc comment.
func refLSTM(i, f, g, o gate, xs [][][]float64, h, c [][]float64) (hOut, cOut [][]float64) {
	ai, af, ag, ao := i.affine(xs, h, true), f.affine(xs, h, true), g.affine(xs, h, true), o.affine(xs, h, true)
	hOut, cOut = make([][]float64, len(h)), make([][]float64, len(h))
	for b := range h {
		hOut[b], cOut[b] = make([]float64, len(h[b])), make([]float64, len(h[b]))
		for k := range h[b] {
			cc := sigmoid(af[b][k])*c[b][k] + sigmoid(ai[b][k])*math.Tanh(ag[b][k])
			cOut[b][k] = cc
			hOut[b][k] = sigmoid(ao[b][k]) * math.Tanh(cc)
		}
	}
	return hOut, cOut
}

// small returns a rows×cols matrix of fixed small weights in [−0.4, 0.4].
func small(seed, rows, cols int) [][]float64 {
	m := make([][]float64, rows)
	for r := range m {
		m[r] = make([]float64, cols)
		for c := range m[r] {
			m[r][c] = 0.1 * float64((seed*7+r*5+c*3)%9-4)
		}
	}
	return m
}

// smallGate returns a gate with fixed small weights for inputs of the given sizes.
func smallGate(seed, H int, inputs []int) gate {
	w := gate{U: small(seed+1, H, H), b: small(seed+2, 1, H)[0]}
	for j, in := range inputs {
		w.W = append(w.W, small(seed+3+j, H, in))
	}
	return w
}

// zeroGate returns a gate with zero weights and bias b.
func zeroGate(H int, inputs []int, b ...float64) gate {
	w := gate{U: small0(H, H), b: b}
	for _, in := range inputs {
		w.W = append(w.W, small0(H, in))
	}
	return w
}

func small0(rows, cols int) [][]float64 {
	m := make([][]float64, rows)
	for r := range m {
		m[r] = make([]float64, cols)
	}
	return m
}

// stackRows flattens the matrices one under another, row-major: the
// documented layout of the stacked gate weights.
func stackRows(ms ...[][]float64) []float64 {
	var out []float64
	for _, m := range ms {
		for _, r := range m {
			out = append(out, r...)
		}
	}
	return out
}

// setGates loads gate weights, in the cell's gate order, into its stacked
// parameters W_j, U and b.
func setGates(t *testing.T, c cells.Cell, gates ...gate) {
	t.Helper()
	for j := range gates[0].W {
		var ws [][][]float64
		for _, g := range gates {
			ws = append(ws, g.W[j])
		}
		setParam(t, c, fmt.Sprintf("W_%d", j), stackRows(ws...))
	}
	var us, bs [][]float64
	for _, g := range gates {
		us = append(us, g.U...)
		bs = append(bs, g.b)
	}
	setParam(t, c, "U", stackRows(us))
	setParam(t, c, "b", stackRows(bs))
}

func setParam(t *testing.T, c cells.Cell, name string, data []float64) {
	t.Helper()
	for _, p := range c.Params() {
		if p.Name == name {
			if err := p.Set(data); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatalf("%s has no parameter %q", c.Name(), name)
}

// stackedSizes runs test at H = 4 and at H = 128, where the stacked gates
// pass 256 (gorgonia merges slices whose bounds differ by a multiple of 256,
// docs/gorgonia.md, case 1; a merge would make a forward pass wrong, which no
// gradient check sees).
func stackedSizes(t *testing.T, test func(t *testing.T, H int)) {
	for _, H := range []int{4, 128} {
		t.Run(fmt.Sprint("H=", H), func(t *testing.T) { test(t, H) })
	}
}

func newCell(t testing.TB, name string, c cells.Config) cells.Cell {
	t.Helper()
	cell, err := cells.New(name, c)
	if err != nil {
		t.Fatal(err)
	}
	return cell
}

// unrollSteps adds the cell's steps over steps (steps[t][j] is input j at
// step t, [B, In_j] row-major) from h0 (and c0) to g and returns the final
// state, its H (and C) watched.
func unrollSteps(g *gx.Graph, c cells.Cell, B int, steps [][][]float64, h0, c0 []float64) cells.State {
	s := cells.State{H: g.Const("h0", h0, B, c.Hidden())}
	if c.HasMemory() {
		s.C = g.Const("c0", c0, B, c.Hidden())
	}
	for i, xs := range steps {
		nodes := make([]*gx.Node, len(xs))
		for j, x := range xs {
			nodes[j] = g.Const(fmt.Sprintf("x%d.%d", j, i), x, B, len(x)/B)
		}
		s = c.Step(g, nodes, s)
	}
	g.Watch(s.H)
	if c.HasMemory() {
		g.Watch(s.C)
	}
	return s
}

// unroll runs the cell over steps (steps[t][j] is input j at step t, [B, In_j]
// row-major) from h0 (and c0) and returns the final H and C.
func unroll(t *testing.T, c cells.Cell, dt tensor.Dtype, B int, steps [][][]float64, h0, c0 []float64) (h, cOut []float64) {
	t.Helper()
	g := gx.NewGraph(dt)
	s := unrollSteps(g, c, B, steps, h0, c0)
	if err := g.Run(); err != nil {
		t.Fatal(err)
	}
	h, err := g.Value(s.H)
	if err != nil {
		t.Fatal(err)
	}
	if c.HasMemory() {
		if cOut, err = g.Value(s.C); err != nil {
			t.Fatal(err)
		}
	}
	return h, cOut
}

func flat(m [][]float64) []float64 { return stackRows(m) }

// flats flattens each input [B][In_j] to row-major data.
func flats(xs [][][]float64) [][]float64 {
	out := make([][]float64, len(xs))
	for j, x := range xs {
		out[j] = flat(x)
	}
	return out
}

func closeTo(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > tol || math.IsNaN(got[i]) {
			t.Errorf("%s = %v, want %v (entry %d off by %.3g)", what, got, want, i, got[i]-want[i])
			return
		}
	}
}

// The fixed step inputs of the small cases: batch 2, input sizes 2 and 1, H = 2.
var (
	x0 = [][]float64{{0.5, -1}, {1, 0.25}}
	x1 = [][]float64{{2}, {-0.5}}
	h0 = [][]float64{{0.5, 0}, {-1, 1}}
	c0 = [][]float64{{1, -1}, {0.4, 2}}
)

// inputsOf returns the fixed inputs and their sizes: x0 alone or x0 and x1.
func inputsOf(n int) ([][][]float64, []int) {
	return [][][]float64{x0, x1}[:n], []int{2, 1}[:n]
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed+1)) }

// randMat returns a rows×cols matrix of draws from U(−1, 1).
func randMat(rng *rand.Rand, rows, cols int) [][]float64 {
	m := make([][]float64, rows)
	for r := range m {
		m[r] = make([]float64, cols)
		for c := range m[r] {
			m[r][c] = 2*rng.Float64() - 1
		}
	}
	return m
}

func randGate(rng *rand.Rand, H int, inputs []int) gate {
	w := gate{U: randMat(rng, H, H), b: randMat(rng, 1, H)[0]}
	for _, in := range inputs {
		w.W = append(w.W, randMat(rng, H, in))
	}
	return w
}
