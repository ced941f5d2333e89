package gx

import (
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
// built from other ops (SymDiff). It runs only in a machine: base.Do
// refuses.
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

	arena *Arena        // host: the arena whose working buffers temp hands out
	f64   bool          // host: the operands are float64
	dev   *devRun       // device: the machine that frees the working buffers
	tmps  []backend.Buf // device: this call's working buffers, kept across runs
	ti    int           // device: the next of tmps
}

// temp returns the op's next working buffer of at least n values, not
// cleared: on the host the arena's (an op that takes them declares their
// sizes for the plan: worker), on a device one of the call's own, allocated
// at its first run and kept. An op takes its buffers in the same order at
// every run.
func (c *call) temp(n int) (backend.Buf, error) {
	if c.arena != nil {
		s := c.arena.temp()
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

// work returns the working buffers op declares (worker), in order: the
// last of them zero-valued where it declares fewer than n.
func (c *call) work(op worker, n int) ([]backend.Buf, error) {
	sizes := op.workspace(c.sh)
	w := make([]backend.Buf, max(n, len(sizes)))
	for i, sz := range sizes {
		var err error
		if w[i], err = c.temp(sz); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// n is the number of values of operand i (1 for a scalar).
func (c *call) n(i int) int { return size(c.sh[i]) }

// backend is the backend a graph computes on when no machine on a device
// runs it: the arena's own cpu backend, unless the arena names another host
// backend (a test's, say: Arena.SetBackend).
func (r *runState) backend() backend.Backend { return r.a().backend() }

func (a *Arena) backend() backend.Backend {
	if a.be == nil {
		a.be = cpu.New() // the arena's own, made at its first use
	}
	return a.be
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

// Do refuses: an op of ours runs in a machine (Graph.Machine), on its
// backend's buffers, never on gorgonia values.
func (o *base) Do(...G.Value) (G.Value, error) {
	return nil, fmt.Errorf("gx: %s runs in a machine (Graph.Machine), not through Do", o.name)
}

// mat is a row-major matrix at the start of b, ld values a row.
func mat(b backend.Buf, ld int) backend.Mat { return backend.Mat{Buf: b, Ld: ld} }

// size is the number of values of a shape (1 for a scalar).
func size(s tensor.Shape) int { return max(1, s.TotalSize()) }
