package device

import (
	"math"
	"strings"
	"testing"
)

// load writes vs into fresh buffers of device d.
func load(t testing.TB, d Kernels, vs ...[]float32) []Buffer {
	t.Helper()
	out := make([]Buffer, len(vs))
	for i, v := range vs {
		b, err := d.Alloc(len(v))
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Write(b, v); err != nil {
			t.Fatal(err)
		}
		out[i] = b
	}
	return out
}

func read(t testing.TB, d Kernels, b Buffer) []float32 {
	t.Helper()
	v := make([]float32, b.Len())
	if err := d.Read(v, b); err != nil {
		t.Fatal(err)
	}
	return v
}

func near(t *testing.T, what string, got, want []float32) {
	t.Helper()
	for i := range want {
		if math.Abs(float64(got[i]-want[i])) > 1e-6 {
			t.Errorf("%s[%d] = %v, want %v", what, i, got[i], want[i])
		}
	}
}

// The cpu device, the reference of the OpenCL tests, on values worked by hand.
func TestCPUByHand(t *testing.T) {
	d := CPU{}
	ln2 := float32(math.Ln2)
	// Row 0: keys 0 and ln 2 kept, 5 masked: e^0 : e^ln2 = 1 : 2 → 1/3, 2/3, 0.
	// Row 1: all masked → zeros.
	b := load(t, d, []float32{0, ln2, 5, 1, 2, 3}, []float32{1, 1, 0, 0, 0, 0}, make([]float32, 6))
	if err := d.MaskedSoftmax(b[2], b[0], b[1], 2, 3); err != nil {
		t.Fatal(err)
	}
	near(t, "softmax", read(t, d, b[2]), []float32{1. / 3, 2. / 3, 0, 0, 0, 0})
	// ∂x = y ⊙ (g − y·g): y = (1/3, 2/3, 0), g = (1, 0, 7): y·g = 1/3,
	// ∂x = (1/3·2/3, 2/3·(−1/3), 0) = (2/9, −2/9, 0).
	g := load(t, d, []float32{1, 0, 7, 1, 1, 1}, make([]float32, 6))
	if err := d.SoftmaxGrad(g[1], b[2], g[0], 2, 3); err != nil {
		t.Fatal(err)
	}
	near(t, "softmax grad", read(t, d, g[1]), []float32{2. / 9, -2. / 9, 0, 0, 0, 0})

	// tanh 0 = 0, tanh(ln 3 / 2) = (3 − 1)/(3 + 1) = 1/2; σ(0) = 1/2, σ(ln 3) = 3/4.
	x := load(t, d, []float32{0, float32(math.Log(3) / 2)}, []float32{0, float32(math.Log(3))}, make([]float32, 2))
	d.Tanh(x[2], x[0], 2)
	near(t, "tanh", read(t, d, x[2]), []float32{0, 0.5})
	d.Sigmoid(x[2], x[1], 2)
	near(t, "sigmoid", read(t, d, x[2]), []float32{0.5, 0.75})
	// TanhGrad: (1 − ½²)·2 = 1.5; SigmoidGrad: ¾·(1 − ¾)·4 = 0.75.
	y := load(t, d, []float32{0.5, 0.75}, []float32{2, 4}, make([]float32, 1), make([]float32, 1))
	d.TanhGrad(y[2], y[0], y[1], 1)
	near(t, "tanh grad", read(t, d, y[2]), []float32{1.5})
	if err := d.SigmoidGrad(y[3], one(t, d, 0.75), one(t, d, 4), 1); err != nil {
		t.Fatal(err)
	}
	near(t, "sigmoid grad", read(t, d, y[3]), []float32{0.75})
	// (0.5, 0.75) + (2, 4) = (2.5, 4.75); (0.5, 0.75) ⊙ (2, 4) = (1, 3).
	s := load(t, d, make([]float32, 2))[0]
	d.Add(s, y[0], y[1], 2)
	near(t, "add", read(t, d, s), []float32{2.5, 4.75})
	d.Mul(s, y[0], y[1], 2)
	near(t, "mul", read(t, d, s), []float32{1, 3})

	// [1 2; 3 4]·[5 6; 7 8] = [19 22; 43 50]; with A transposed, [1 3; 2 4]·B = [26 30; 38 44].
	m := load(t, d, []float32{1, 2, 3, 4}, []float32{5, 6, 7, 8}, []float32{1, 1, 1, 1})
	d.Sgemm(false, false, 2, 2, 2, 1, m[0], 2, m[1], 2, 0, m[2], 2)
	near(t, "AB", read(t, d, m[2]), []float32{19, 22, 43, 50})
	d.Sgemm(true, false, 2, 2, 2, 2, m[0], 2, m[1], 2, -1, m[2], 2)
	near(t, "2AᵀB − C", read(t, d, m[2]), []float32{2*26 - 19, 2*30 - 22, 2*38 - 43, 2*44 - 50})
}

func TestCPUSizeErrors(t *testing.T) {
	d := CPU{}
	b := load(t, d, make([]float32, 4), make([]float32, 6))
	for _, c := range []struct {
		err  error
		want string
	}{
		{d.Add(b[0], b[0], b[1], 5), "buffer 0 holds 4 values, the kernel needs 5"},
		{d.MaskedSoftmax(b[1], b[1], b[0], 2, 3), "buffer 2 holds 4 values, the kernel needs 6"},
		{d.Sgemm(false, false, 2, 3, 2, 1, b[0], 2, b[1], 3, 0, b[0], 3), "C is 2×3 with leading dimension 3: needs 6 values, its buffer holds 4"},
		{d.Sgemm(false, false, 2, 2, 2, 1, b[0], 1, b[0], 2, 0, b[0], 2), "leading dimension 1 < 2"},
		{d.Tanh(b[0], b[0], 0), "size 0"},
		{d.Write(b[0], make([]float32, 3)), "3 values into a buffer of 4"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("error %v, want one containing %q", c.err, c.want)
		}
	}
}

func one(t testing.TB, d Kernels, v float32) Buffer { return load(t, d, []float32{v})[0] }
