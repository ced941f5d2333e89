package device

import (
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/backend/cpu"
	"github.com/attnzoo/attnzoo/internal/opencl"
)

// requireEnv makes a missing OpenCL platform fail the tests instead of
// skipping them (CI sets it: it installs pocl).
const requireEnv = "ATTNZOO_REQUIRE_OPENCL"

var (
	clOnce sync.Once
	clDev  *OpenCL
	clErr  error
)

// testOpenCL is the OpenCL device on the first device of the first
// platform with one, shared by the package's tests.
func testOpenCL(t testing.TB) *OpenCL {
	t.Helper()
	clOnce.Do(func() {
		var d opencl.Device
		if d, clErr = Resolve(Spec{Kind: "opencl"}); clErr == nil {
			clDev, clErr = NewOpenCL(d)
		}
	})
	if clErr != nil {
		if os.Getenv(requireEnv) == "1" {
			t.Fatalf("%s=1 but no OpenCL device: %v", requireEnv, clErr)
		}
		t.Skipf("no OpenCL device (%v); set %s=1 to fail instead", clErr, requireEnv)
	}
	return clDev
}

func randFloats(r *rand.Rand, n int, scale float64) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(scale * r.NormFloat64())
	}
	return s
}

// agree runs the same kernel from the same inputs on the cpu backend in
// float64 (the reference), on the cpu backend in float32 and on the OpenCL
// backend, and compares each float32 leg's output buffers with the
// reference: |x − ref| ≤ 1e-5·|ref| + 1e-6·scale, where scale bounds the
// terms a value sums (1 for the elementwise kernels and softmax). The
// OpenCL kernels compute in float32 with built-ins accurate to a few ulp
// (≈ 6e-8 each), the cpu's float32 tanh and σ are rational approximations
// within 4e-7: relative errors of ~1e-6; the absolute floor covers values
// near 0 that are differences (1 − y², g − Σ y·g).
func agree(t *testing.T, what string, ins [][]float32, outs []int, scale float64, run func(be backend.Backend, b []backend.Buf) error) {
	t.Helper()
	ref, b64 := cpu.New(), make([]backend.Buf, len(ins))
	for i, x := range ins {
		b64[i].F64 = make([]float64, len(x))
		for j, v := range x {
			b64[i].F64[j] = float64(v)
		}
	}
	if err := run(ref, b64); err != nil {
		t.Fatalf("%s on cpu in float64: %v", what, err)
	}
	for _, be := range backends(t) {
		bs := load(t, be, ins...)
		if err := run(be, bs); err != nil {
			t.Fatalf("%s on %s: %v", what, be.Name(), err)
		}
		var worst, top float64
		for _, o := range outs {
			want, got := b64[o].F64, get(t, be, bs[o])
			for i := range want {
				d := math.Abs(float64(got[i]) - want[i])
				if d > 1e-5*math.Abs(want[i])+1e-6*scale || math.IsNaN(float64(got[i])) {
					t.Fatalf("%s: output %d [%d] = %v on %s, %v in float64", what, o, i, got[i], be.Name(), want[i])
				}
				worst, top = max(worst, d), max(top, math.Abs(want[i]))
			}
		}
		t.Logf("%s: max |%s − float64| = %.3g, max |float64| = %.3g", what, be.Name(), worst, top)
	}
}

var oddSizes = []int{1, 37, 129, 1023}

func TestOpenCLElementwise(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, n := range oddSizes {
		a, b := randFloats(r, n, 3), randFloats(r, n, 3)
		y := randFloats(r, n, 0.5) // an activation's output: in (−1, 1) mostly
		out := make([]float32, n)
		for _, k := range []struct {
			name string
			run  func(d backend.Backend, b []backend.Buf) error
		}{
			{"Add", func(d backend.Backend, b []backend.Buf) error { return d.Add(b[2], b[0], b[1], n) }},
			{"Mul", func(d backend.Backend, b []backend.Buf) error { return d.Mul(b[2], b[0], b[1], n) }},
			{"Tanh", func(d backend.Backend, b []backend.Buf) error { return d.Map(backend.Tanh, b[2], b[0], n) }},
			{"Sigmoid", func(d backend.Backend, b []backend.Buf) error { return d.Map(backend.Sigmoid, b[2], b[0], n) }},
			{"TanhGrad", func(d backend.Backend, b []backend.Buf) error { return d.MapGrad(backend.Tanh, b[2], b[3], b[1], n) }},
			{"SigmoidGrad", func(d backend.Backend, b []backend.Buf) error {
				return d.MapGrad(backend.Sigmoid, b[2], b[3], b[1], n)
			}},
			// In place: y = tanh y.
			{"Tanh in place", func(d backend.Backend, b []backend.Buf) error { return d.Map(backend.Tanh, b[0], b[0], n) }},
		} {
			agree(t, k.name+" n="+strconv.Itoa(n), [][]float32{a, b, out, y}, []int{0, 2}, 1, k.run)
		}
	}
}

// Masked softmax and its gradient over rows of odd lengths, with random
// masks, an all-masked row (zeros), a row keeping one key (a one-hot 1)
// and a fully kept row.
func TestOpenCLMaskedSoftmax(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, sz := range [][2]int{{37, 129}, {5, 1023}, {129, 37}, {3, 1}} {
		rows, cols := sz[0], sz[1]
		n := rows * cols
		x, g := randFloats(r, n, 4), randFloats(r, n, 1)
		mask := make([]float32, n)
		for i := range mask {
			if r.Float64() < 0.7 {
				mask[i] = 1
			}
		}
		clear(mask[:cols]) // row 0: all masked
		if rows > 2 {
			clear(mask[cols : 2*cols]) // row 1: one key
			mask[cols+cols/2] = 1
			for i := 2 * cols; i < 3*cols; i++ { // row 2: every key
				mask[i] = 1
			}
		}
		name := strconv.Itoa(rows) + "×" + strconv.Itoa(cols)
		y := make([]float32, n)
		softmax := func(d backend.Backend, b []backend.Buf) error {
			return d.MaskedSoftmax(b[2], b[0], b[1], rows, cols)
		}
		agree(t, "MaskedSoftmax "+name, [][]float32{x, mask, y}, []int{2}, 1, softmax)
		// The gradient from the cpu's float32 softmax output, so every leg starts equal.
		c := cpu.New()
		bc := load(t, c, x, mask, y)
		softmax(c, bc)
		yv := bc[2].F32
		for i := 0; i < cols; i++ {
			if yv[i] != 0 {
				t.Fatalf("%s: the all-masked row has %v at %d", name, yv[i], i)
			}
		}
		if rows > 2 && yv[cols+cols/2] != 1 {
			t.Fatalf("%s: the one-key row gives its key %v, want 1", name, yv[cols+cols/2])
		}
		agree(t, "SoftmaxGrad "+name, [][]float32{yv, g, make([]float32, n)}, []int{2}, 1, func(d backend.Backend, b []backend.Buf) error {
			return d.SoftmaxGrad(b[2], b[0], b[1], rows, cols)
		})
		agree(t, "SoftmaxGrad in place "+name, [][]float32{yv, g}, []int{1}, 1, func(d backend.Backend, b []backend.Buf) error {
			return d.SoftmaxGrad(b[1], b[0], b[1], rows, cols)
		})
	}
}

// SGEMM through CLBlast, and the cpu's, against the cpu's float64 sums. A value
// sums k products of N(0,1) numbers; the float32 partial sums grow like
// √p, each addition rounds by 6e-8 of its partial sum, so the error is
// about 6e-8·√(Σ_p p) ≈ 4e-8·k (measured on pocl: 9e-5 at k = 1023): the
// floor 1e-6·k (scale k) leaves a margin of 10.
func TestOpenCLSgemm(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, c := range []struct {
		ta, tb  bool
		m, n, k int
	}{{false, false, 37, 129, 23}, {false, true, 129, 37, 1023}, {true, false, 23, 37, 129}} {
		lda, ldb := c.k, c.n
		if c.ta {
			lda = c.m
		}
		if c.tb {
			ldb = c.k
		}
		a, b, cv := randFloats(r, c.m*c.k, 1), randFloats(r, c.k*c.n, 1), randFloats(r, c.m*c.n, 1)
		agree(t, "Sgemm "+strconv.Itoa(c.m)+"×"+strconv.Itoa(c.n)+"×"+strconv.Itoa(c.k), [][]float32{a, b, cv}, []int{2}, float64(c.k), func(d backend.Backend, bs []backend.Buf) error {
			return d.Gemm(c.m, c.n, c.k, 0.5, backend.Mat{Buf: bs[0], Ld: lda, T: c.ta}, backend.Mat{Buf: bs[1], Ld: ldb, T: c.tb},
				2, backend.Mat{Buf: bs[2], Ld: c.n})
		})
	}
}

func TestOpenCLName(t *testing.T) {
	if name := testOpenCL(t).Name(); !strings.HasPrefix(name, "opencl:") {
		t.Errorf("Name() = %q", name)
	}
}

// Traffic counts each CLBlast call as one launch and as one GemmCall, and
// a kernel of ours as one launch and no GemmCall: two Gemms and two Adds
// are 4 launches, 2 of them GemmCalls, and 2·(2·(2·3·4)) = 96 GEMM FLOP
// (2·m·n·k per product).
func TestOpenCLTrafficGemmCalls(t *testing.T) {
	o := testOpenCL(t)
	be := o.Backend()
	bufs := load(t, be, make([]float32, 24), make([]float32, 24), make([]float32, 24))
	t0 := o.Traffic()
	for range 2 {
		if err := be.Gemm(2, 3, 4, 1, backend.Mat{Buf: bufs[0], Ld: 4}, backend.Mat{Buf: bufs[1], Ld: 3}, 0, backend.Mat{Buf: bufs[2], Ld: 3}); err != nil {
			t.Fatal(err)
		}
		if err := be.Add(bufs[2], bufs[0], bufs[1], 24); err != nil {
			t.Fatal(err)
		}
	}
	t1 := o.Traffic()
	if got := t1.Launches - t0.Launches; got != 4 {
		t.Errorf("%d launches, want 4", got)
	}
	if got := t1.GemmCalls - t0.GemmCalls; got != 2 {
		t.Errorf("%d GEMM calls, want 2", got)
	}
	if got := t1.GemmFlops - t0.GemmFlops; got != 96 {
		t.Errorf("%d GEMM FLOP, want 96", got)
	}
}
