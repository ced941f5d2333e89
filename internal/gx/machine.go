package gx

import (
	"fmt"
	"maps"
	"slices"
	"unsafe"

	"github.com/attnzoo/attnzoo/internal/backend"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// The machine's loop (Machine, exec.go) runs over a backend's buffers
// (backend.Buf); a host op has its operands read back from the backend and
// its result written to it. Values move lazily: a node computed on the host
// and read by a host op, or an input read only by host ops, never crosses.
// On a host machine nothing is copied: an input's or a host op's value is
// its buffer, and a buffer read back is a tensor over it. The host ops of a
// device machine's graph are listed by HostOps; the bytes that crossed and
// the kernels launched are counted by the device (device.Counter). The
// gorgonia graph stays the one description of what is computed: the
// backend changes where each step runs, never what it computes.
//
// Inputs are read from their host values at each run; bound parameters
// too, unless the machine was compiled with a Resident store (MachineWith),
// whose buffers they then use. A watched node is read back only when its
// value is asked for (Graph.View, Value), and Buffer gives a node's
// buffer itself. Device graphs are float32; host graphs float32 or float64.

// deviceFn computes an op's output buffer from its operands' buffers.
type deviceFn func(out backend.Buf, args []backend.Buf) error

// devRun is a machine's state on its backend: the values' buffers, the
// steps' functions and what the plan decided.
type devRun struct {
	be       backend.Backend
	shapes   []tensor.Shape  // per node
	bufs     []backend.Buf   // per node
	host     []G.Value       // per node: the host value, when hostAt == gen
	own      []G.Value       // per node: a host value of ours to read into (on the host: over its buffer)
	hostAt   []uint64        // run in which host[i] was last valid
	devAt    []uint64        // run in which bufs[i] was last valid
	fns      []deviceFn      // per step; nil = host op
	sites    []backend.Site  // the device steps' call sites (backend.Sited), released by free
	argb     [][]backend.Buf // per step, reused
	scr      []float32       // conversion scratch
	gen      uint64
	hostOp   []string // names of the ops that run on the host, sorted
	res      *Resident
	fuse     *devFusion        // the Adds folded into their operands' ops
	views    map[int]view      // per step: a value placed as a view of its operand (views.go)
	viewBufs []backend.Buf     // the views' device buffers, freed before the others
	params   map[int]*Param    // input nodes that are resident parameters
	owned    []backend.Buf     // ops' scratch buffers (tracked), freed with the machine
	sent     map[int][]float32 // per input of a device not resident: the values its buffer holds
	devIn    []slot            // the inputs a step on the device reads, written at a run's start

	f64    bool       // the graph is float64 (a host machine)
	arena  *Arena     // a host machine's: its values are Go slices in the arena's slab
	slabs  []slabSlot // a host machine's values at offsets (plan), their buffers set by prepare
	slabN  int        // the slab's size this plan needs, in values
	slabAt uint64     // the arena generation the slots' buffers were set for
	work   []int      // the working buffers its ops take, in values, by place (Arena.temp)

	allocs     []backend.Buf // the values' buffers, each once (values share them: plan)
	allocBytes int64         // the computed values' buffers
	planBytes  int64         // the same at offsets (DeviceBytes)
}

// MachineOn compiles the graph to run on backend be, every value in a
// buffer of its memory (backend.Memory), whole buffers shared by liveness
// (plan). The graph must be float32. Close it to free the buffers.
func (g *Graph) MachineOn(be backend.Backend) (*Machine, error) { return g.machineOn(be, nil, nil) }

// MachineWith is MachineOn on r's device, the bound parameters read from
// r's buffers.
func (g *Graph) MachineWith(r *Resident) (*Machine, error) { return g.machineOn(r.be, r, nil) }

// machineOn compiles the graph on be: into arena a's slab (a host machine),
// or, a nil, into buffers of be's own.
func (g *Graph) machineOn(be backend.Backend, res *Resident, a *Arena) (*Machine, error) {
	if g.err != nil {
		return nil, g.err
	}
	if a == nil && g.dt != Float32 {
		return nil, fmt.Errorf("gx: device %s runs float32 graphs; this graph is %v", be.Name(), g.dt)
	}
	m, err := g.compile()
	if err != nil {
		return nil, err
	}
	n := len(m.stepOf)
	r := &devRun{be: be, shapes: make([]tensor.Shape, n), bufs: make([]backend.Buf, n), host: make([]G.Value, n),
		own: make([]G.Value, n), hostAt: make([]uint64, n), devAt: make([]uint64, n),
		fns: make([]deviceFn, len(m.steps)), argb: make([][]backend.Buf, len(m.steps)),
		res: res, params: map[int]*Param{}, sent: map[int][]float32{}, arena: a,
		f64: g.dt == Float64}
	m.arena = a
	for p, nd := range g.bound {
		if i, ok := m.idx[nd]; ok && res != nil {
			r.params[i] = p // its buffer is the store's, set each run
		}
	}
	for i, nd := range m.nodes {
		r.shapes[i] = nd.Shape()
	}
	names := map[string]bool{}
	sumDeltasFromOperands(m, be)
	for k := range m.steps {
		s := &m.steps[k]
		in := r.argShapes(s)
		r.argb[k] = make([]backend.Buf, len(s.args))
		switch o := s.op.(type) { // an adder's forward: its into its output
		case adder:
			r.fns[k] = r.onBuffers(in, r.shapes[s.out], func(c *call) error { return o.into(c, c.out, false) })
		case forwarder:
			r.fns[k] = r.onBuffers(in, r.shapes[s.out], o.forward)
		default: // one of gorgonia's: every op of ours has a forward
			if s.add && in[0].Eq(in[1]) && in[0].Eq(r.shapes[s.out]) {
				n := size(in[0])
				r.fns[k] = func(out backend.Buf, args []backend.Buf) error {
					return be.Add(out, args[0], args[1], n)
				}
			} else if a == nil {
				names[s.op.String()] = true
			}
		}
	}
	readOnDevice := make([]bool, n) // read by a step on the device
	for k, s := range m.steps {
		for _, a := range s.args {
			readOnDevice[a] = readOnDevice[a] || r.fns[k] != nil
		}
	}
	for _, in := range m.inputs {
		if _, ok := r.params[in.idx]; !ok {
			if a == nil {
				r.sent[in.idx] = nil
			}
			if readOnDevice[in.idx] {
				r.devIn = append(r.devIn, in)
			}
		}
	}
	views, fixed, cover := r.findViews(m, a != nil)
	r.fuse = r.fuseAdds(m)
	r.views = r.keepViews(m, views, fixed, cover, r.fuse)
	absorbs := r.absorbSteps(m)
	for k := range m.steps {
		s := &m.steps[k]
		switch {
		case r.fuse.none[k]:
			r.fns[k] = func(backend.Buf, []backend.Buf) error { return nil }
		case absorbs[k] != nil:
			r.fns[k] = r.absorbing(s, absorbs[k], r.fuse.acc[k])
			r.argb[k] = make([]backend.Buf, len(s.args))
		case r.fuse.acc[k]:
			op := s.op.(adder)
			r.fns[k] = r.onBuffers(r.argShapes(s), r.shapes[s.out], func(c *call) error { return op.into(c, c.out, true) })
		}
	}
	// a step's launches reuse what the backend kept from its earlier runs
	// at its call site (backend.Sited; the same buffers every run: the plan
	// fixes them)
	if sited, ok := be.(backend.Sited); ok {
		for k, fn := range r.fns {
			if fn != nil {
				site := sited.NewSite()
				r.sites = append(r.sites, site)
				r.fns[k] = func(out backend.Buf, args []backend.Buf) error {
					sited.At(site)
					defer sited.At(nil)
					return fn(out, args)
				}
			}
		}
	}
	if err := r.plan(m); err != nil {
		r.free()
		return nil, err
	}
	m.watched, m.nodes = nil, nil
	m.lazy = make([]lazyRead, len(m.reads))
	r.hostOp = slices.Sorted(maps.Keys(names))
	m.dev = r
	if a != nil {
		a.machines[m] = true
	}
	return m, nil
}

// onBuffers runs f on a call whose operands and output are a step's
// buffers (one call, reused every run): an op's forward, or its result
// added into its output's buffer, its folded Add's (fuseAdds). On the host its
// working buffers are the arena's, handed out afresh at each step.
func (r *devRun) onBuffers(in []tensor.Shape, out tensor.Shape, f func(*call) error) deviceFn {
	c, a := &call{be: r.be, in: make([]backend.Buf, len(in)), sh: in, osh: out, dev: r, arena: r.arena, f64: r.f64}, r.arena
	return func(out backend.Buf, args []backend.Buf) error {
		if a != nil {
			a.next = 0
		}
		c.out, c.ti = out, 0
		copy(c.in, args)
		return f(c)
	}
}

// argShapes is the shapes of step s's operands.
func (r *devRun) argShapes(s *step) []tensor.Shape {
	in := make([]tensor.Shape, len(s.args))
	for j, a := range s.args {
		in[j] = r.shapes[a]
	}
	return in
}

// HostOps names the ops of a device machine's graph that run on the host
// (no device kernel yet), sorted; nil on a host machine (Machine).
func (m *Machine) HostOps() []string {
	if m.dev == nil {
		return nil
	}
	return append([]string(nil), m.dev.hostOp...)
}

func (r *devRun) free() {
	for _, s := range r.sites {
		s.Release()
	}
	for _, bs := range [][]backend.Buf{r.viewBufs, r.owned, r.allocs} { // the views first
		for _, b := range bs {
			r.be.Free(b)
		}
	}
	r.sites, r.viewBufs, r.owned, r.allocs = nil, nil, nil, nil
}

// DeviceBytes is what a device machine allocated for its computed values
// (not its inputs, not its ops' working buffers), and what the same
// lifetimes would need at offsets in one buffer, as the host plans them:
// 0 on the host.
func (m *Machine) DeviceBytes() (allocated, planned int64) {
	if m.arena != nil || m.dev == nil {
		return 0, 0
	}
	return m.dev.allocBytes, m.dev.planBytes
}

// RunAgain is Run (exec.go) for a caller that has changed no weight the
// graph binds since its last run: the products use the weights packed for
// that run again instead of packing them anew (a decoding graph run once
// per token: at the anchor, beam search packed ~150,000 weight values at
// each of its 13 steps). Changed inputs that are not weights are read as
// by Run.
func (m *Machine) RunAgain() error {
	if m.arena != nil {
		m.prepare() // first: a slab grown anew clears every machine's values
	}
	r := m.dev
	r.gen++
	for _, in := range m.inputs {
		if p, ok := r.params[in.idx]; ok {
			b, err := r.res.Buffer(p)
			if err != nil {
				return err
			}
			r.bufs[in.idx], r.devAt[in.idx] = b, r.gen
			continue
		}
		r.host[in.idx], r.hostAt[in.idx] = in.node.Value(), r.gen
	}
	// the inputs the device reads go in together, first, the host not
	// waiting for them (WriteAsync)
	for _, in := range r.devIn {
		if err := r.toDevice(in.idx); err != nil {
			return fmt.Errorf("gx: input %s: %w", in.node.Name(), err)
		}
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
				return fmt.Errorf("gx: node %s (%v) on %s: %w", s.node.Name(), s.op, r.be.Name(), err)
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
	for i, rd := range m.reads {
		l := &m.lazy[i]
		*l = lazyRead{r: r, idx: rd.idx, gen: r.gen, node: rd.node}
		*rd.into = l
	}
	return nil
}

// lazyRead stands for a watched node's value until it is asked for
// (Graph.View, Value): most watched values of a device's training step,
// the gradients, are never read back.
type lazyRead struct {
	G.Value // nil: a lazyRead is never used as a value
	r       *devRun
	idx     int
	gen     uint64
	node    *Node
}

// resolve reads a lazy value back from its device.
func resolve(v *G.Value) error {
	l, ok := (*v).(*lazyRead)
	if !ok {
		return nil
	}
	if l.gen != l.r.gen {
		return fmt.Errorf("gx: node %s: its value was overwritten by a later run", l.node.Name())
	}
	h, err := l.r.toHost(l.idx)
	if err != nil {
		return fmt.Errorf("gx: reading node %s: %w", l.node.Name(), err)
	}
	*v = h
	return nil
}

// Buffer is node n's buffer on the machine's backend after a run, holding
// this run's value (written there first if it was computed on the host). It
// stays valid until the next run.
func (m *Machine) Buffer(n *Node) (backend.Buf, error) {
	if m.dev == nil {
		return backend.Buf{}, fmt.Errorf("gx: node %s: the machine is closed", n.Name())
	}
	i, ok := m.idx[n]
	if !ok {
		return backend.Buf{}, fmt.Errorf("gx: node %s is not in the graph", n.Name())
	}
	if err := m.dev.toDevice(i); err != nil {
		return backend.Buf{}, fmt.Errorf("gx: node %s: %w", n.Name(), err)
	}
	return m.dev.bufs[i], nil
}

// toDevice makes node i's buffer hold this run's value.
func (r *devRun) toDevice(i int) error {
	if r.devAt[i] == r.gen {
		return nil
	}
	if r.hostAt[i] != r.gen {
		return fmt.Errorf("node %d has no value in this run", i)
	}
	b := valueBuf(r.host[i]) // (a value crossing has a buffer of its size: plan)
	if b.Len() != size(r.shapes[i]) || r.arena != nil && (b.F64 != nil) != r.f64 {
		return fmt.Errorf("value %T (%d numbers) for a node of shape %v and the graph's dtype", r.host[i], b.Len(), r.shapes[i])
	}
	if r.arena != nil { // the host value is the buffer
		r.bufs[i], r.devAt[i] = b, r.gen
		return nil
	}
	src := b.F32 // as float32s (a float64 value converted)
	if b.F64 != nil {
		r.scr = r.scr[:0]
		for _, x := range b.F64 {
			r.scr = append(r.scr, float32(x))
		}
		src = r.scr
	}
	// an input holding what its buffer already holds (an initial state of
	// zeros, a constant) is not sent again
	last, isInput := r.sent[i]
	if isInput && slices.Equal(last, src) {
		r.devAt[i] = r.gen
		return nil
	}
	write := r.be.Write
	if isInput { // the host need not wait for it
		write = r.be.WriteAsync
	}
	if err := write(r.bufs[i], src); err != nil {
		return err
	}
	if isInput {
		r.sent[i] = append(last[:0], src...)
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
	if sh := r.shapes[i]; r.own[i] == nil { // a scalar, or a tensor of the shape
		b := r.bufs[i] // on the host: a tensor over the buffer
		if r.arena == nil {
			b = backend.Buf{F32: make([]float32, size(sh))}
		}
		switch {
		case len(sh) > 0 && b.F64 != nil:
			r.own[i] = tensor.New(tensor.WithShape(sh...), tensor.WithBacking(b.F64))
		case len(sh) > 0:
			r.own[i] = tensor.New(tensor.WithShape(sh...), tensor.WithBacking(b.F32))
		case b.F64 != nil:
			r.own[i] = (*G.F64)(&b.F64[0])
		default:
			r.own[i] = (*G.F32)(&b.F32[0])
		}
	}
	if r.arena == nil { // read into our own value
		if err := r.be.Read(valueBuf(r.own[i]).F32, r.bufs[i]); err != nil {
			return nil, err
		}
	}
	r.host[i], r.hostAt[i] = r.own[i], r.gen
	return r.own[i], nil
}

// valueBuf is a host value's data: its own, or a copy where it is not
// contiguous (a view); empty for a value of another kind.
func valueBuf(v G.Value) backend.Buf {
	switch t := v.(type) {
	case *G.F32:
		return backend.Buf{F32: unsafe.Slice((*float32)(t), 1)}
	case *G.F64:
		return backend.Buf{F64: unsafe.Slice((*float64)(t), 1)}
	case *tensor.Dense:
		if t.IsView() || t.RequiresIterator() {
			t = t.Materialize().(*tensor.Dense)
		}
		switch t.Dtype() {
		case Float32:
			return backend.Buf{F32: t.Float32s()}
		case Float64:
			return backend.Buf{F64: t.Float64s()}
		}
	}
	return backend.Buf{}
}
