// Package cpu is the cpu backend: buffers are Go slices in the process's
// memory, float32 through the engine's own kernels (internal/gx/kern: the
// AVX-512 maps and products where the processor has them) and float64 in
// plain Go, for the gradient checks. It registers itself as "cpu".
package cpu

import (
	"fmt"

	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/gx/kern"
)

// CPU is the cpu backend. It keeps the weights its products read prepared
// (packed, or transposed) from their first product in a run to the run's
// end: one CPU serves the machines of one arena, which run one at a time.
type CPU struct {
	runs   uint64 // NewRun calls: the prepared weights' generation
	packs  map[packKey]*transposed
	bpacks map[bKey]*bPacked
	exps   kern.Scratch // a row's exponentials (rows.go)
}

// New returns a cpu backend with nothing prepared.
func New() *CPU { return &CPU{} }

var _ backend.Backend = (*CPU)(nil)

func init() {
	backend.RegisterDriver("cpu", backend.Driver{Float64: true, Open: func(rest string, _ int) (backend.Backend, error) {
		if rest != "" {
			return nil, fmt.Errorf("backend: cpu takes no device number (got %q)", "cpu:"+rest)
		}
		return New(), nil
	}})
}

// Name is "cpu".
func (*CPU) Name() string { return "cpu" }

// Host is true: the values are Go slices.
func (*CPU) Host() bool { return true }

// check reports whether the buffers hold float32 values (else float64),
// and an error naming the kernel when one holds fewer than n values, is a
// device's, or has another dtype than the first.
func check(name string, n int, bs ...backend.Buf) (is32 bool, err error) {
	is32 = bs[0].F32 != nil
	for i, b := range bs {
		if err := checkBuf(name, i, b, n, is32); err != nil {
			return false, err
		}
	}
	return is32, nil
}

// sized is a buffer and the values a kernel needs of it.
type sized struct {
	b backend.Buf
	n int
}

// checkSized is check with a size for each buffer.
func checkSized(name string, bs ...sized) (is32 bool, err error) {
	is32 = bs[0].b.F32 != nil
	for i, x := range bs {
		if err := checkBuf(name, i, x.b, x.n, is32); err != nil {
			return false, err
		}
	}
	return is32, nil
}

// checkBuf is check's test of buffer i.
func checkBuf(name string, i int, b backend.Buf, n int, is32 bool) error {
	switch {
	case b.Mem != nil:
		return fmt.Errorf("backend: cpu: %s: buffer %d is a device's (%T)", name, i, b.Mem)
	case (b.F32 != nil) != is32:
		return fmt.Errorf("backend: cpu: %s: buffer %d has another dtype than buffer 0", name, i)
	case b.Len() < n:
		return fmt.Errorf("backend: cpu: %s: buffer %d holds %d values, the kernel needs %d", name, i, b.Len(), n)
	}
	return nil
}

// typed runs f32 or f64, the kernel for the buffers' dtype (is32, as
// check found it), unless the check failed: every method's one dispatch.
func typed(is32 bool, err error, f32, f64 func()) error {
	switch {
	case err != nil:
	case is32:
		f32()
	default:
		f64()
	}
	return err
}

// Close releases the prepared weights.
func (c *CPU) Close() error {
	c.packs, c.bpacks = nil, nil
	return nil
}
