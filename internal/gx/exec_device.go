package gx

import (
	"fmt"
	"sort"
	"unsafe"

	"github.com/attnzoo/attnzoo/internal/device"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// A machine on a device (MachineOn) runs the same compiled steps as the
// host machine, but every node's value lives in a buffer of the device
// (internal/device): an op that has the deviceOp ability computes there
// through the device's kernels, gorgonia's Add of two same-shape tensors
// runs as the device's Add, and any other op runs its Do on the host, its
// operands read back from the device and its result written to it (a host
// op). Values move lazily: a node computed on the host and read by a host
// op, or an input read only by host ops, never crosses. The host ops of a
// compiled graph are listed by HostOps; the bytes that crossed and the
// kernels launched are counted by the device (device.Counter).
//
// The gorgonia graph stays the one description of what is computed: the
// device machine changes where each step runs, never what it computes, and
// a graph whose ops all fall back to the host computes exactly what the
// host machine computes (the device only holds the values).
//
// Inputs (and bound parameters) are read from their host values at each
// run. Device graphs are float32.

// deviceOp is the ability of an op to compute on a device's buffers.
type deviceOp interface {
	// onDevice returns the op's computation on d for operands of the given
	// shapes and output shape, or nil when d lacks a kernel it needs; the
	// machine then runs the op's Do on the host.
	onDevice(d device.Kernels, in []tensor.Shape, out tensor.Shape) deviceFn
}

// deviceFn computes an op's output buffer from its operands' buffers.
type deviceFn func(out device.Buffer, args []device.Buffer) error

// devRun is a machine's state on a device.
type devRun struct {
	d      device.Kernels
	shapes []tensor.Shape    // per node
	bufs   []device.Buffer   // per node
	host   []G.Value         // per node: the host value, when hostAt == gen
	own    []G.Value         // per node: a host value of ours to read into
	hostAt []uint64          // run in which host[i] was last valid
	devAt  []uint64          // run in which bufs[i] was last valid
	fns    []deviceFn        // per step; nil = host op
	argb   [][]device.Buffer // per step, reused
	scr    []float32         // conversion scratch
	gen    uint64
	hostOp []string // names of the ops that run on the host, sorted
}

// MachineOn compiles the graph to run on device d. The graph must be
// float32. Close it to free the device buffers.
func (g *Graph) MachineOn(d device.Kernels) (*Machine, error) {
	if g.err != nil {
		return nil, g.err
	}
	if g.dt != Float32 {
		return nil, fmt.Errorf("gx: device %s runs float32 graphs; this graph is %v", d.Name(), g.dt)
	}
	m, err := g.Machine()
	if err != nil {
		return nil, err
	}
	n := len(m.vals)
	r := &devRun{d: d, shapes: make([]tensor.Shape, n), bufs: make([]device.Buffer, n), host: make([]G.Value, n),
		own: make([]G.Value, n), hostAt: make([]uint64, n), devAt: make([]uint64, n),
		fns: make([]deviceFn, len(m.steps)), argb: make([][]device.Buffer, len(m.steps))}
	nodes := make([]*Node, n)
	for _, in := range m.inputs {
		nodes[in.idx] = in.node
	}
	for _, s := range m.steps {
		nodes[s.out] = s.node
	}
	for i, nd := range nodes {
		r.shapes[i] = nd.Shape().Clone()
		if r.bufs[i], err = d.Alloc(max(1, r.shapes[i].TotalSize())); err != nil {
			r.free()
			return nil, fmt.Errorf("gx: node %s %v on %s: %w", nd.Name(), r.shapes[i], d.Name(), err)
		}
	}
	names := map[string]bool{}
	for k := range m.steps {
		s := &m.steps[k]
		in := make([]tensor.Shape, len(s.args))
		for j, a := range s.args {
			in[j] = r.shapes[a]
		}
		r.argb[k] = make([]device.Buffer, len(s.args))
		switch op := s.op.(type) {
		case deviceOp:
			r.fns[k] = op.onDevice(d, in, r.shapes[s.out])
		default:
			if s.add && in[0].Eq(in[1]) && in[0].Eq(r.shapes[s.out]) {
				n := max(1, in[0].TotalSize())
				r.fns[k] = func(out device.Buffer, args []device.Buffer) error { return d.Add(out, args[0], args[1], n) }
			}
		}
		if r.fns[k] == nil {
			names[opName(s.op)] = true
		}
	}
	for name := range names {
		r.hostOp = append(r.hostOp, name)
	}
	sort.Strings(r.hostOp)
	m.dev = r
	return m, nil
}

// opName names an op for HostOps: ours by name, gorgonia's by its String.
func opName(op G.Op) string {
	if b, ok := op.(interface{ opName() string }); ok {
		return b.opName()
	}
	return op.String()
}

func (o *base) opName() string { return o.name }

// HostOps names the ops of a device machine's graph that run on the host
// (no device kernel yet), sorted; nil on the host machine.
func (m *Machine) HostOps() []string {
	if m.dev == nil {
		return nil
	}
	return append([]string(nil), m.dev.hostOp...)
}

func (r *devRun) free() {
	for _, b := range r.bufs {
		if b != nil {
			r.d.Free(b)
		}
	}
}

// runDevice is Run on a device.
func (m *Machine) runDevice() error {
	r := m.dev
	r.gen++
	for _, in := range m.inputs {
		r.host[in.idx], r.hostAt[in.idx] = in.node.Value(), r.gen
	}
	for k := range m.steps {
		s := &m.steps[k]
		if fn := r.fns[k]; fn != nil {
			for j, a := range s.args {
				if err := r.toDevice(a); err != nil {
					return fmt.Errorf("gx: node %s (%v): %w", s.node.Name(), s.op, err)
				}
				r.argb[k][j] = r.bufs[a]
			}
			if err := fn(r.bufs[s.out], r.argb[k]); err != nil {
				return fmt.Errorf("gx: node %s (%v) on %s: %w", s.node.Name(), s.op, r.d.Name(), err)
			}
			r.devAt[s.out] = r.gen
			continue
		}
		for j, a := range s.args {
			v, err := r.toHost(a)
			if err != nil {
				return fmt.Errorf("gx: node %s (%v): %w", s.node.Name(), s.op, err)
			}
			s.argv[j] = v
		}
		v, err := s.op.Do(s.argv...)
		if err != nil {
			return fmt.Errorf("gx: node %s (%v): %w", s.node.Name(), s.op, err)
		}
		r.host[s.out], r.hostAt[s.out] = v, r.gen
	}
	for _, rd := range m.reads {
		v, err := r.toHost(rd.idx)
		if err != nil {
			return fmt.Errorf("gx: reading node %s: %w", rd.node.Name(), err)
		}
		*rd.into = v
	}
	return nil
}

// toDevice makes node i's buffer hold this run's value.
func (r *devRun) toDevice(i int) error {
	if r.devAt[i] == r.gen {
		return nil
	}
	if r.hostAt[i] != r.gen {
		return fmt.Errorf("node %d has no value in this run", i)
	}
	src, err := r.floats(r.host[i], r.bufs[i].Len())
	if err != nil {
		return err
	}
	if err := r.d.Write(r.bufs[i], src); err != nil {
		return err
	}
	r.devAt[i] = r.gen
	return nil
}

// toHost returns node i's value of this run on the host.
func (r *devRun) toHost(i int) (G.Value, error) {
	if r.hostAt[i] == r.gen {
		return r.host[i], nil
	}
	if r.devAt[i] != r.gen {
		return nil, fmt.Errorf("node %d has no value in this run", i)
	}
	if r.own[i] == nil {
		if len(r.shapes[i]) == 0 {
			r.own[i] = new(G.F32)
		} else {
			r.own[i] = tensor.New(tensor.WithShape(r.shapes[i]...), tensor.Of(Float32))
		}
	}
	t := r.own[i]
	var dst []float32
	if f, ok := t.(*G.F32); ok {
		dst = unsafe.Slice((*float32)(f), 1)
	} else {
		dst = t.(*tensor.Dense).Float32s()
	}
	if err := r.d.Read(dst, r.bufs[i]); err != nil {
		return nil, err
	}
	r.host[i], r.hostAt[i] = t, r.gen
	return t, nil
}

// floats is a host value as n float32s (a float64 value is converted).
func (r *devRun) floats(v G.Value, n int) ([]float32, error) {
	var src []float32
	switch t := v.(type) {
	case *G.F32:
		src = unsafe.Slice((*float32)(t), 1)
	case *G.F64:
		r.scr = append(r.scr[:0], float32(*t))
		src = r.scr
	default:
		switch d := v.Data().(type) {
		case []float32:
			src = d
		case float32:
			r.scr = append(r.scr[:0], d)
			src = r.scr
		case []float64:
			r.scr = r.scr[:0]
			for _, x := range d {
				r.scr = append(r.scr, float32(x))
			}
			src = r.scr
		case float64:
			r.scr = append(r.scr[:0], float32(d))
			src = r.scr
		default:
			return nil, fmt.Errorf("value %T cannot go to a device", v.Data())
		}
	}
	if len(src) != n {
		return nil, fmt.Errorf("a value of %d numbers for a buffer of %d", len(src), n)
	}
	return src, nil
}
