package cpu

import (
	"fmt"

	"github.com/attnzoo/attnzoo/internal/backend"
)

// Alloc returns a zeroed Go slice of n float32 values.
func (*CPU) Alloc(n int) (backend.Buf, error) {
	if n < 1 {
		return backend.Buf{}, fmt.Errorf("backend: cpu: Alloc(%d) (want ≥ 1)", n)
	}
	return backend.Buf{F32: make([]float32, n)}, nil
}

// Free does nothing: the garbage collector frees the slice.
func (*CPU) Free(backend.Buf) error { return nil }

// ViewAt reports that a view may start anywhere (backend.Viewer).
func (*CPU) ViewAt(int) bool { return true }

// View is values [off, off+n) of x: a slice of it.
func (*CPU) View(x backend.Buf, off, n int) (backend.Buf, error) {
	if off < 0 || n < 1 || off+n > x.Len() {
		return backend.Buf{}, fmt.Errorf("cpu: View: values [%d, %d) of a buffer of %d", off, off+n, x.Len())
	}
	if x.F64 != nil {
		return backend.Buf{F64: x.F64[off : off+n : off+n]}, nil
	}
	return backend.Buf{F32: x.F32[off : off+n : off+n]}, nil
}

// Write copies src into b.
func (*CPU) Write(b backend.Buf, src []float32) error {
	s, err := span("Write", b, len(src), "%[2]d values into a buffer of %[3]d")
	if err != nil {
		return err
	}
	copy(s, src)
	return nil
}

// Read copies b into dst.
func (*CPU) Read(dst []float32, b backend.Buf) error {
	s, err := span("Read", b, len(dst), "a buffer of %[3]d values into %[2]d")
	if err != nil {
		return err
	}
	copy(dst, s)
	return nil
}

// WriteAsync is Write: the cpu has no queue.
func (c *CPU) WriteAsync(b backend.Buf, src []float32) error { return c.Write(b, src) }

// ReadAsync copies b's first len(dst) values into dst at once.
func (c *CPU) ReadAsync(dst []float32, b backend.Buf) (backend.Pending, error) {
	if b.F32 == nil || len(dst) > len(b.F32) {
		return nil, fmt.Errorf("backend: cpu: ReadAsync: %d values of a buffer of %d (want float32 and enough)", len(dst), b.Len())
	}
	copy(dst, b.F32)
	return backend.Done{}, nil
}

// span is b's float32 values, which a transfer of n values must fill (else
// the error says so in the words of msg: n, then b's length).
func span(name string, b backend.Buf, n int, msg string) ([]float32, error) {
	if b.F32 == nil {
		return nil, fmt.Errorf("backend: cpu: %s: not a float32 host buffer", name)
	}
	if n != len(b.F32) {
		return nil, fmt.Errorf("backend: cpu: %s: "+msg, name, n, len(b.F32))
	}
	return b.F32, nil
}
