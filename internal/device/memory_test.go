package device

import (
	"math"
	"strings"
	"testing"

	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/backend/cpu"
)

// put writes x into a fresh buffer of be's memory, freed with the test.
func put(t testing.TB, be backend.Backend, x []float32) backend.Buf {
	t.Helper()
	b, err := be.Alloc(len(x))
	if err == nil {
		err = be.Write(b, x)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { be.Free(b) })
	return b
}

// load is put of each of vs.
func load(t testing.TB, be backend.Backend, vs ...[]float32) []backend.Buf {
	t.Helper()
	out := make([]backend.Buf, len(vs))
	for i, v := range vs {
		out[i] = put(t, be, v)
	}
	return out
}

// get reads b back from be's memory.
func get(t testing.TB, be backend.Backend, b backend.Buf) []float32 {
	t.Helper()
	v := make([]float32, b.Len())
	if err := be.Read(v, b); err != nil {
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

// backends are the cpu backend and the OpenCL one, whose kernels the
// tests compare.
func backends(t *testing.T) []backend.Backend {
	return []backend.Backend{cpu.New(), testOpenCL(t).Backend()}
}

// The kernels the OpenCL device began with, on values worked by hand, on
// the cpu backend and the OpenCL one, through their memory.
func TestKernelsByHand(t *testing.T) {
	for _, d := range backends(t) {
		ln2 := float32(math.Ln2)
		// Row 0: keys 0 and ln 2 kept, 5 masked: e^0 : e^ln2 = 1 : 2 → 1/3, 2/3, 0.
		// Row 1: all masked → zeros.
		b := load(t, d, []float32{0, ln2, 5, 1, 2, 3}, []float32{1, 1, 0, 0, 0, 0}, make([]float32, 6))
		if err := d.MaskedSoftmax(b[2], b[0], b[1], 2, 3); err != nil {
			t.Fatal(err)
		}
		near(t, d.Name()+" softmax", get(t, d, b[2]), []float32{1. / 3, 2. / 3, 0, 0, 0, 0})
		// ∂x = y ⊙ (g − y·g): y = (1/3, 2/3, 0), g = (1, 0, 7): y·g = 1/3,
		// ∂x = (1/3·2/3, 2/3·(−1/3), 0) = (2/9, −2/9, 0).
		g := load(t, d, []float32{1, 0, 7, 1, 1, 1}, make([]float32, 6))
		if err := d.SoftmaxGrad(g[1], b[2], g[0], 2, 3); err != nil {
			t.Fatal(err)
		}
		near(t, d.Name()+" softmax grad", get(t, d, g[1]), []float32{2. / 9, -2. / 9, 0, 0, 0, 0})

		// tanh 0 = 0, tanh(ln 3 / 2) = (3 − 1)/(3 + 1) = 1/2; σ(0) = 1/2, σ(ln 3) = 3/4.
		x := load(t, d, []float32{0, float32(math.Log(3) / 2)}, []float32{0, float32(math.Log(3))}, make([]float32, 2))
		d.Map(backend.Tanh, x[2], x[0], 2)
		near(t, d.Name()+" tanh", get(t, d, x[2]), []float32{0, 0.5})
		d.Map(backend.Sigmoid, x[2], x[1], 2)
		near(t, d.Name()+" sigmoid", get(t, d, x[2]), []float32{0.5, 0.75})
		// TanhGrad: (1 − ½²)·2 = 1.5; SigmoidGrad: ¾·(1 − ¾)·4 = 0.75.
		y := load(t, d, []float32{0.5, 0.75}, []float32{2, 4}, make([]float32, 1), make([]float32, 1))
		d.MapGrad(backend.Tanh, y[2], y[0], y[1], 1)
		near(t, d.Name()+" tanh grad", get(t, d, y[2]), []float32{1.5})
		if err := d.MapGrad(backend.Sigmoid, y[3], put(t, d, []float32{0.75}), put(t, d, []float32{4}), 1); err != nil {
			t.Fatal(err)
		}
		near(t, d.Name()+" sigmoid grad", get(t, d, y[3]), []float32{0.75})
		// (0.5, 0.75) + (2, 4) = (2.5, 4.75); (0.5, 0.75) ⊙ (2, 4) = (1, 3).
		s := put(t, d, make([]float32, 2))
		d.Add(s, y[0], y[1], 2)
		near(t, d.Name()+" add", get(t, d, s), []float32{2.5, 4.75})
		d.Mul(s, y[0], y[1], 2)
		near(t, d.Name()+" mul", get(t, d, s), []float32{1, 3})

		// [1 2; 3 4]·[5 6; 7 8] = [19 22; 43 50]; with A transposed, [1 3; 2 4]·B = [26 30; 38 44].
		m := load(t, d, []float32{1, 2, 3, 4}, []float32{5, 6, 7, 8}, []float32{1, 1, 1, 1})
		mat := func(b backend.Buf, tr bool) backend.Mat { return backend.Mat{Buf: b, Ld: 2, T: tr} }
		d.Gemm(2, 2, 2, 1, mat(m[0], false), mat(m[1], false), 0, mat(m[2], false))
		near(t, d.Name()+" AB", get(t, d, m[2]), []float32{19, 22, 43, 50})
		d.Gemm(2, 2, 2, 2, mat(m[0], true), mat(m[1], false), -1, mat(m[2], false))
		near(t, d.Name()+" 2AᵀB − C", get(t, d, m[2]), []float32{2*26 - 19, 2*30 - 22, 2*38 - 43, 2*44 - 50})
	}
}

// Memory: a write, an asynchronous write whose source changes at once, a
// late read collected after a later kernel, on both backends.
func TestMemory(t *testing.T) {
	for _, d := range backends(t) {
		b := put(t, d, []float32{1, 2, 3})
		src := []float32{4, 5, 6}
		if err := d.WriteAsync(b, src); err != nil {
			t.Fatal(err)
		}
		src[0] = 99 // the write took a copy
		late := make([]float32, 2)
		p, err := d.ReadAsync(late, b) // the first two values, after the write
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Add(b, b, b, 3); err != nil { // queued after the read: not in it
			t.Fatal(err)
		}
		if err := p.Wait(); err != nil {
			t.Fatal(err)
		}
		near(t, d.Name()+" late read", late, []float32{4, 5})
		near(t, d.Name()+" after Add", get(t, d, b), []float32{8, 10, 12})
	}
}

// Sizes that do not fit, and another backend's buffer, are errors naming
// the kernel's buffer and the sizes.
func TestSizeErrors(t *testing.T) {
	for _, d := range backends(t) {
		b := load(t, d, make([]float32, 4), make([]float32, 6))
		for _, c := range []struct {
			err  error
			want string
		}{
			{d.Add(b[0], b[0], b[1], 5), "buffer 0 holds 4 values, the kernel needs 5"},
			{d.MaskedSoftmax(b[1], b[1], b[0], 2, 3), "buffer 2 holds 4 values, the kernel needs 6"},
			{d.Write(b[0], make([]float32, 3)), "Write: 3 values into a buffer of 4"},
			{d.Read(make([]float32, 5), b[0]), "Read: a buffer of 4 values into 5"},
		} {
			if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
				t.Errorf("%s: error %v, want one containing %q", d.Name(), c.err, c.want)
			}
		}
	}
	cl := testOpenCL(t).Backend()
	dev, host := put(t, cl, make([]float32, 4)), backend.Host(make([]float32, 4))
	if err := cl.Add(dev, dev, host, 4); err == nil || !strings.Contains(err.Error(), "buffer 2 is a host buffer") {
		t.Errorf("OpenCL Add(host buffer) = %v", err)
	}
	if err := cpu.New().Add(host, host, dev, 4); err == nil || !strings.Contains(err.Error(), "buffer 2 is a device's") {
		t.Errorf("cpu Add(OpenCL buffer) = %v", err)
	}
}
