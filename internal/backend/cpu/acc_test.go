package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/attnzoo/attnzoo/internal/backend"
)

// With acc, each method adds into its output what it sets without: for
// y0 in the output beforehand, acc gives y0 + (the plain result), float32
// and float64, up to the rounding of one more sum per value (the sums of
// rows add the rows into y0 in order instead of into 0: 1e-5 relative to
// the largest term is ample for 5 rows of N(0,1) values).
func TestAcc(t *testing.T) {
	const rows, n, A, V = 5, 7, 3, 4
	r := rand.New(rand.NewPCG(1, 2))
	rnd := func(k int) []float64 {
		x := make([]float64, k)
		for i := range x {
			x[i] = r.NormFloat64()
		}
		return x
	}
	cases := []struct {
		name string
		out  int         // output size
		in   [][]float64 // operands
		run  func(be *CPU, y backend.Buf, in []backend.Buf, acc bool) error
	}{
		{"ColSums packed", n, [][]float64{rnd(rows * n)}, func(be *CPU, y backend.Buf, in []backend.Buf, acc bool) error {
			return be.ColSums(y, 0, in[0], 0, n, rows, n, acc)
		}},
		{"ColSums", n, [][]float64{rnd(rows * 2 * n)}, func(be *CPU, y backend.Buf, in []backend.Buf, acc bool) error {
			return be.ColSums(y, 0, in[0], n, 2*n, rows, n, acc)
		}},
		{"MatVec", rows, [][]float64{rnd(rows * n), rnd(n)}, func(be *CPU, y backend.Buf, in []backend.Buf, acc bool) error {
			return be.MatVec(rows, n, backend.Mat{Buf: in[0], Ld: n}, in[1], y, acc)
		}},
		{"MatVec T", n, [][]float64{rnd(rows * n), rnd(rows)}, func(be *CPU, y backend.Buf, in []backend.Buf, acc bool) error {
			return be.MatVec(n, rows, backend.Mat{Buf: in[0], Ld: n, T: true}, in[1], y, acc)
		}},
		{"AdditiveDelta", rows * A, [][]float64{rnd(rows * A), rnd(A), rnd(rows)}, func(be *CPU, y backend.Buf, in []backend.Buf, acc bool) error {
			return be.AdditiveDelta(y, in[0], in[1], in[2], rows, A, acc)
		}},
		{"GRUBlendDH", rows * n, [][]float64{rnd(rows * 4 * n), rnd(rows * n)}, func(be *CPU, y backend.Buf, in []backend.Buf, acc bool) error {
			return be.GRUBlendDH(y, in[0], in[1], rows, n, acc)
		}},
		{"EmbedGrad", V * n, [][]float64{rnd(rows * n), {3, 1, 3, 0, 1}}, func(be *CPU, y backend.Buf, in []backend.Buf, acc bool) error {
			return be.EmbedGrad(y, in[0], in[1], V, n, rows, acc) // id 2 absent: its row stays y0's
		}},
	}
	for _, c := range cases {
		for _, f32 := range []bool{true, false} {
			buf := func(x []float64) backend.Buf {
				if !f32 {
					return backend.Host(append([]float64(nil), x...))
				}
				y := make([]float32, len(x))
				for i, v := range x {
					y[i] = float32(v)
				}
				return backend.Host(y)
			}
			vals := func(b backend.Buf) []float64 {
				if !f32 {
					return b.F64
				}
				x := make([]float64, len(b.F32))
				for i, v := range b.F32 {
					x[i] = float64(v)
				}
				return x
			}
			in := make([]backend.Buf, len(c.in))
			for i, x := range c.in {
				in[i] = buf(x)
			}
			y0 := rnd(c.out)
			plain, summed := buf(make([]float64, c.out)), buf(y0)
			if err := c.run(New(), plain, in, false); err != nil {
				t.Fatal(err)
			}
			if err := c.run(New(), summed, in, true); err != nil {
				t.Fatal(err)
			}
			p, s := vals(plain), vals(summed)
			for i := range p {
				want := vals(buf(y0))[i] + p[i]
				if math.Abs(s[i]-want) > 1e-5*(1+math.Abs(want)) {
					t.Errorf("%s (float32 %v): acc gives y[%d] = %v, want y0 + plain = %v", c.name, f32, i, s[i], want)
					break
				}
			}
		}
	}
}
