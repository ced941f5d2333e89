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
		switch {
		case b.Mem != nil:
			return false, fmt.Errorf("backend: cpu: %s: buffer %d is a device's (%T)", name, i, b.Mem)
		case (b.F32 != nil) != is32:
			return false, fmt.Errorf("backend: cpu: %s: buffer %d has another dtype than buffer 0", name, i)
		case b.Len() < n:
			return false, fmt.Errorf("backend: cpu: %s: buffer %d holds %d values, the kernel needs %d", name, i, b.Len(), n)
		}
	}
	return is32, nil
}

// Close releases the prepared weights.
func (c *CPU) Close() error {
	c.packs, c.bpacks = nil, nil
	return nil
}
