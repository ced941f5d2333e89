package gx

import (
	"slices"

	"fmt"

	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/backend/cpu"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// An op of ours is written once, against a backend (internal/backend):
// its forward computes its value from its operands' buffers with the
// backend's typed methods, on whichever backend the machine runs — the cpu
// on the arena's slices, or a device on its buffers — and its gradient is
// built from other ops (SymDiff). The op's gorgonia Do is base.Do, the same
// forward on the graph's host backend.
type forwarder interface {
	G.Op
	forward(c *call) error
}

// call is one computation of an op: its backend, its output's buffer and
// shape, its operands' buffers and shapes. A machine keeps one per step.
type call struct {
	be  backend.Backend
	out backend.Buf
	in  []backend.Buf
	sh  []tensor.Shape // the operands'
	osh tensor.Shape   // the output's

	run  *runState     // host: the arena whose working buffers temp hands out
	f64  bool          // host: the operands are float64
	dev  *devRun       // device: the machine that frees the working buffers
	tmps []backend.Buf // device: this call's working buffers, kept across runs
	ti   int           // device: the next of tmps
}

// temp returns the op's next working buffer of at least n values, not
// cleared: on the host the arena's (an op that takes them declares their
// sizes for the plan: worker), on a device one of the call's own, allocated
// at its first run and kept. An op takes its buffers in the same order at
// every run.
func (c *call) temp(n int) (backend.Buf, error) {
	if c.dev == nil {
		s := c.run.temp()
		if c.f64 {
			return backend.Buf{F64: s.Get64(n)}, nil
		}
		return backend.Buf{F32: s.Get32(n)}, nil
	}
	if c.ti == len(c.tmps) || c.tmps[c.ti].Len() < n {
		b, err := c.dev.be.Alloc(n)
		if err != nil {
			return backend.Buf{}, err
		}
		c.dev.owned = append(c.dev.owned, b)
		if c.ti == len(c.tmps) {
			c.tmps = append(c.tmps, backend.Buf{})
		}
		c.tmps[c.ti] = b
	}
	c.ti++
	return c.tmps[c.ti-1], nil
}

// n is the number of values of operand i (1 for a scalar).
func (c *call) n(i int) int { return size(c.sh[i]) }

// backend is the backend a graph computes on when no machine on a device
// runs it: the arena's own cpu backend, unless the arena names another host
// backend (a test's, say: Arena.SetBackend).
func (r *runState) backend() backend.Backend { return r.a().backend() }

func (a *Arena) backend() backend.Backend {
	if a.be != nil {
		return a.be
	}
	return a.cpu()
}

// cpu is the arena's own cpu backend, made at its first use.
func (a *Arena) cpu() *cpu.CPU {
	if a.own == nil {
		a.own = cpu.New()
	}
	return a.own
}

// SetBackend makes the machines of the arena compute through be, a host
// backend (be.Host()): the cpu backend wrapped to count its calls, say.
func (a *Arena) SetBackend(be backend.Backend) error {
	if !be.Host() {
		return fmt.Errorf("gx: %s is a device backend: compile with MachineOn", be.Name())
	}
	a.be = be
	return nil
}

// SetBackend makes the graph's arena compute through be (Arena.SetBackend).
func (g *Graph) SetBackend(be backend.Backend) error { return g.run.a().SetBackend(be) }

// Do is the op's forward on the graph's host backend, over gorgonia values:
// its output is the buffer the machine gave it (setOut), or one of its own.
func (o *base) Do(vs ...G.Value) (G.Value, error) {
	c, ops, err := o.hostCall(vs)
	if err != nil {
		return nil, err
	}
	if len(c.osh) == 0 { // a scalar: a fresh gorgonia value
		s32, s64 := []float32{0}, []float64{0}
		c.out = backend.Buf{F64: s64}
		if ops.dt == Float32 {
			c.out = backend.Buf{F32: s32}
		}
		if err := o.self.forward(c); err != nil {
			return nil, err
		}
		if ops.dt == Float32 {
			return G.NewF32(s32[0]), nil
		}
		return G.NewF64(s64[0]), nil
	}
	t := ops.allocDirty(c.osh...)
	if ops.dt == Float32 {
		c.out = backend.Buf{F32: t.Float32s()}
	} else {
		c.out = backend.Buf{F64: t.Float64s()}
	}
	if err := o.self.forward(c); err != nil {
		return nil, err
	}
	return t, nil
}

// hostCall is the op's call on the graph's host backend for gorgonia
// values, its output not yet set.
func (o *base) hostCall(vs []G.Value) (*call, *operands, error) {
	if o.self == nil {
		return nil, nil, fmt.Errorf("gx: %s: op run before it was applied to a graph", o.name)
	}
	ops, err := o.getOperands(vs)
	if err != nil {
		return nil, nil, err
	}
	c := &o.c
	c.be, c.sh = o.run.backend(), ops.sh
	c.run, c.f64 = o.run, ops.dt == Float64
	c.in = c.in[:0]
	for i := range ops.sh {
		if ops.dt == Float32 {
			c.in = append(c.in, backend.Buf{F32: ops.f32[i]})
		} else {
			c.in = append(c.in, backend.Buf{F64: ops.f64[i]})
		}
	}
	if c.osh, err = o.outShape(ops); err != nil {
		return nil, nil, err
	}
	return c, ops, nil
}

// outShape is the output's shape: the buffer's the machine gave the op, or
// the op's InferShape of its operands' shapes (kept for the next call with
// the same shapes: a deferred product runs outside the plan at every step).
func (o *base) outShape(ops *operands) (tensor.Shape, error) {
	if o.buf != nil && o.buf.Dtype() == ops.dt {
		return o.buf.Shape(), nil
	}
	if o.inferred != nil && slices.EqualFunc(o.inferredFor, ops.sh, tensor.Shape.Eq) {
		return o.inferred, nil
	}
	ds := make([]G.DimSizer, len(ops.sh))
	o.inferredFor = o.inferredFor[:0]
	for i, s := range ops.sh {
		ds[i] = s
		o.inferredFor = append(o.inferredFor, s.Clone())
	}
	sh, err := o.self.InferShape(ds...)
	o.inferred = sh
	return sh, err
}

// mat is a row-major matrix at the start of b, ld values a row.
func mat(b backend.Buf, ld int) backend.Mat { return backend.Mat{Buf: b, Ld: ld} }

// size is the number of values of a shape (1 for a scalar).
func size(s tensor.Shape) int { return max(1, s.TotalSize()) }
