package device

import (
	"fmt"
	"math"

	"github.com/attnzoo/attnzoo/internal/refgemm"
)

// CPU is the cpu device: buffers are Go slices and kernels plain loops,
// summing in float64. It is the reference the OpenCL device is tested
// against; the engine's own fast cpu kernels (internal/gx) are not behind
// this seam yet.
type CPU struct{}

// cpuBuffer is a cpu device buffer.
type cpuBuffer []float32

func (b cpuBuffer) Len() int { return len(b) }

// Name is "cpu".
func (CPU) Name() string { return "cpu" }

// Floats is the slice behind a cpu buffer (nil for another device's).
func (CPU) Floats(b Buffer) []float32 {
	s, _ := b.(cpuBuffer)
	return s
}

func (CPU) Alloc(n int) (Buffer, error) {
	if n < 1 {
		return nil, fmt.Errorf("device: cpu: Alloc(%d) (want ≥ 1)", n)
	}
	return make(cpuBuffer, n), nil
}

func (CPU) Write(b Buffer, src []float32) error {
	s, err := cpuSlices("Write", b)
	if err != nil {
		return err
	}
	if len(src) != len(s[0]) {
		return fmt.Errorf("device: cpu: Write: %d values into a buffer of %d", len(src), len(s[0]))
	}
	copy(s[0], src)
	return nil
}

func (CPU) Read(dst []float32, b Buffer) error {
	s, err := cpuSlices("Read", b)
	if err != nil {
		return err
	}
	if len(dst) != len(s[0]) {
		return fmt.Errorf("device: cpu: Read: a buffer of %d values into %d", len(s[0]), len(dst))
	}
	copy(dst, s[0])
	return nil
}

func (CPU) Free(Buffer) error { return nil }

// cpuSlices unwraps cpu buffers; another device's buffer is an error.
func cpuSlices(kernel string, bs ...Buffer) ([][]float32, error) {
	out := make([][]float32, len(bs))
	for i, b := range bs {
		s, ok := b.(cpuBuffer)
		if !ok {
			return nil, fmt.Errorf("device: cpu: %s: buffer %d (%T) is not a cpu buffer", kernel, i, b)
		}
		out[i] = s
	}
	return out, nil
}

func (CPU) Sgemm(transA, transB bool, m, n, k int, alpha float32, a Buffer, lda int, b Buffer, ldb int, beta float32, c Buffer, ldc int) error {
	if err := fitsGemm(transA, transB, m, n, k, a, lda, b, ldb, c, ldc); err != nil {
		return err
	}
	s, err := cpuSlices("Sgemm", a, b, c)
	if err != nil {
		return err
	}
	refgemm.Sgemm(transA, transB, m, n, k, alpha, s[0], lda, s[1], ldb, beta, s[2], ldc)
	return nil
}

// each applies f at every index below n of same-length slices.
func each(kernel string, n int, f func(s [][]float32, i int), bs ...Buffer) error {
	if err := fits(kernel, n, bs...); err != nil {
		return err
	}
	s, err := cpuSlices(kernel, bs...)
	if err != nil {
		return err
	}
	for i := range n {
		f(s, i)
	}
	return nil
}

func (CPU) Add(y, a, b Buffer, n int) error {
	return each("Add", n, func(s [][]float32, i int) { s[0][i] = s[1][i] + s[2][i] }, y, a, b)
}

func (CPU) Mul(y, a, b Buffer, n int) error {
	return each("Mul", n, func(s [][]float32, i int) { s[0][i] = s[1][i] * s[2][i] }, y, a, b)
}

func (CPU) Tanh(y, x Buffer, n int) error {
	return each("Tanh", n, func(s [][]float32, i int) { s[0][i] = float32(math.Tanh(float64(s[1][i]))) }, y, x)
}

func (CPU) Sigmoid(y, x Buffer, n int) error {
	return each("Sigmoid", n, func(s [][]float32, i int) { s[0][i] = float32(1 / (1 + math.Exp(-float64(s[1][i])))) }, y, x)
}

func (CPU) TanhGrad(dx, y, g Buffer, n int) error {
	return each("TanhGrad", n, func(s [][]float32, i int) {
		v := float64(s[1][i])
		s[0][i] = float32(float64(s[2][i]) * (1 - v*v))
	}, dx, y, g)
}

func (CPU) SigmoidGrad(dx, y, g Buffer, n int) error {
	return each("SigmoidGrad", n, func(s [][]float32, i int) {
		v := float64(s[1][i])
		s[0][i] = float32(float64(s[2][i]) * v * (1 - v))
	}, dx, y, g)
}

// cpuRows checks that each buffer holds rows × cols values and unwraps them.
func cpuRows(kernel string, rows, cols int, bs ...Buffer) ([][]float32, error) {
	if err := fitsRows(kernel, rows, cols, bs...); err != nil {
		return nil, err
	}
	return cpuSlices(kernel, bs...)
}

func (CPU) MaskedSoftmax(y, x, mask Buffer, rows, cols int) error {
	s, err := cpuRows("MaskedSoftmax", rows, cols, y, x, mask)
	if err != nil {
		return err
	}
	e := make([]float64, cols)
	for r := range rows {
		yr, xr, mr := s[0][r*cols:(r+1)*cols], s[1][r*cols:(r+1)*cols], s[2][r*cols:(r+1)*cols]
		max, any := math.Inf(-1), false
		for i, v := range xr {
			if mr[i] > 0.5 && (!any || float64(v) > max) {
				max, any = float64(v), true
			}
		}
		var sum float64
		for i, v := range xr {
			e[i] = 0
			if any && mr[i] > 0.5 {
				e[i] = math.Exp(float64(v) - max)
				sum += e[i]
			}
		}
		for i := range yr {
			yr[i] = 0
			if any {
				yr[i] = float32(e[i] / sum)
			}
		}
	}
	return nil
}

func (CPU) SoftmaxGrad(dx, y, g Buffer, rows, cols int) error {
	s, err := cpuRows("SoftmaxGrad", rows, cols, dx, y, g)
	if err != nil {
		return err
	}
	for r := range rows {
		dr, yr, gr := s[0][r*cols:(r+1)*cols], s[1][r*cols:(r+1)*cols], s[2][r*cols:(r+1)*cols]
		var dot float64
		for i := range yr {
			dot += float64(yr[i]) * float64(gr[i])
		}
		for i := range yr {
			dr[i] = float32(float64(yr[i]) * (float64(gr[i]) - dot))
		}
	}
	return nil
}
