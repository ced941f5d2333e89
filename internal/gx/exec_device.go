package gx

import (
	"fmt"
	"slices"
	"sort"
	"unsafe"

	"github.com/attnzoo/attnzoo/internal/backend"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// A machine on a device (MachineOn) runs the same compiled steps as the
// host machine, but every node's value lives in a buffer of a backend's
// memory (backend.Memory: an OpenCL device's, or the cpu backend's Go
// slices): an op of ours runs its forward there on that backend (the same
// forward the host machine runs on the cpu's),
// gorgonia's Add of two same-shape tensors runs as the backend's Add, and
// any other op of gorgonia's runs its Do on the host, its
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
// Inputs are read from their host values at each run; bound parameters
// too, unless the machine was compiled with a Resident store (MachineWith),
// whose buffers they then use. A watched node is read back only when its
// value is asked for (Graph.View, Value), and Buffer gives a node's
// device buffer itself. Device graphs are float32.

// deviceFn computes an op's output buffer from its operands' buffers.
type deviceFn func(out backend.Buf, args []backend.Buf) error

// devRun is a machine's state on a device.
type devRun struct {
	be      backend.Backend
	shapes  []tensor.Shape  // per node
	bufs    []backend.Buf   // per node
	host    []G.Value       // per node: the host value, when hostAt == gen
	own     []G.Value       // per node: a host value of ours to read into
	hostAt  []uint64        // run in which host[i] was last valid
	devAt   []uint64        // run in which bufs[i] was last valid
	fns     []deviceFn      // per step; nil = host op
	sited   backend.Sited   // the backend, when it keeps launches per call site
	sites   []backend.Site  // per device step: its call site (sited)
	argb    [][]backend.Buf // per step, reused
	scr     []float32       // conversion scratch
	gen     uint64
	hostOp  []string // names of the ops that run on the host, sorted
	res     *Resident
	fuse    *devFusion     // the Adds folded into their operands' ops
	unstack *unstack       // the Rows copied together (exec_device_unstack.go)
	stk     *stacked       // the gradient chains run as one product (exec_device_stack.go)
	preset  map[int]bool   // inputs whose buffer was filled on the device for the next run
	params  map[int]*Param // input nodes that are resident parameters
	idx     map[*Node]int
	owned   []backend.Buf     // ops' scratch buffers (tracked), freed with the machine
	sent    map[int][]float32 // per input: the values its buffer holds
	inputs  map[int]bool
	devIn   []slot // the inputs a step on the device reads, written at a run's start

	allocs     []backend.Buf // the values' buffers, each once (values share them: plan)
	allocBytes int64         // the computed values' buffers
	planBytes  int64         // the same at offsets (DeviceBytes)
}

// MachineOn compiles the graph to run on backend be, every value in a
// buffer of its memory (backend.Memory). The graph must be float32. Close
// it to free the buffers.
func (g *Graph) MachineOn(be backend.Backend) (*Machine, error) { return g.machineOn(be, nil) }

// MachineWith is MachineOn on r's device, the bound parameters read from
// r's buffers.
func (g *Graph) MachineWith(r *Resident) (*Machine, error) { return g.machineOn(r.be, r) }

func (g *Graph) machineOn(be backend.Backend, res *Resident) (*Machine, error) {
	if g.err != nil {
		return nil, g.err
	}
	if g.dt != Float32 {
		return nil, fmt.Errorf("gx: device %s runs float32 graphs; this graph is %v", be.Name(), g.dt)
	}
	m, err := g.compile()
	if err != nil {
		return nil, err
	}
	n := len(m.vals)
	r := &devRun{be: be, shapes: make([]tensor.Shape, n), bufs: make([]backend.Buf, n), host: make([]G.Value, n),
		own: make([]G.Value, n), hostAt: make([]uint64, n), devAt: make([]uint64, n),
		fns: make([]deviceFn, len(m.steps)), argb: make([][]backend.Buf, len(m.steps)),
		res: res, params: map[int]*Param{}, preset: map[int]bool{}, idx: make(map[*Node]int, n), sent: map[int][]float32{}}
	bound := map[*Node]*Param{}
	if res != nil {
		for p, nd := range g.bound {
			bound[nd] = p
		}
	}
	nodes := append([]*Node(nil), m.nodes...) // every node, a step dropped unread too (dropUnread)
	r.inputs = map[int]bool{}
	for _, in := range m.inputs {
		nodes[in.idx] = in.node
		r.inputs[in.idx] = true
	}
	for _, s := range m.steps {
		nodes[s.out] = s.node
	}
	for i, nd := range nodes {
		r.idx[nd] = i
		r.shapes[i] = nd.Shape().Clone()
		if p, ok := bound[nd]; ok {
			r.params[i] = p // its buffer is the store's, set each run
		}
	}
	names := map[string]bool{}
	r.sited, _ = be.(backend.Sited)
	sumDeltasFromOperands(m, be)
	r.unstack = unstackRows(m, be) // reorders m.steps: before anything is built from them
	for k := range m.steps {
		s := &m.steps[k]
		in := make([]tensor.Shape, len(s.args))
		for j, a := range s.args {
			in[j] = r.shapes[a]
		}
		r.argb[k] = make([]backend.Buf, len(s.args))
		switch op := s.op.(type) {
		case forwarder:
			switch {
			case r.unstack.none[k]:
				r.fns[k] = func(backend.Buf, []backend.Buf) error { return nil }
			case r.unstack.lead[k] != nil:
				r.fns[k] = r.unstackFn(m, be, r.unstack.lead[k])
			default:
				r.fns[k] = r.onBackend(op, be, in, r.shapes[s.out])
			}
		default:
			if s.add && in[0].Eq(in[1]) && in[0].Eq(r.shapes[s.out]) {
				n := max(1, in[0].TotalSize())
				r.fns[k] = func(out backend.Buf, args []backend.Buf) error {
					return be.Add(out, args[0], args[1], n)
				}
			}
		}
		if r.fns[k] == nil {
			names[opName(s.op)] = true
		} else if r.sited != nil {
			if r.sites == nil {
				r.sites = make([]backend.Site, len(m.steps))
			}
			r.sites[k] = r.sited.NewSite()
		}
	}
	readOnDevice := make([]bool, n) // read by a step on the device
	for k, s := range m.steps {
		for _, a := range s.args {
			readOnDevice[a] = readOnDevice[a] || r.fns[k] != nil
		}
	}
	for _, in := range m.inputs {
		if _, ok := r.params[in.idx]; !ok && readOnDevice[in.idx] {
			r.devIn = append(r.devIn, in)
		}
	}
	onDevice := make([]bool, len(m.steps))
	for k, fn := range r.fns {
		onDevice[k] = fn != nil
	}
	r.fuse = fuseAdds(m, onDevice, m.watched)
	for k := range m.steps {
		s := &m.steps[k]
		switch {
		case r.fuse.none[k]:
			r.fns[k] = func(backend.Buf, []backend.Buf) error { return nil }
		case r.fuse.acc[k]:
			in := make([]tensor.Shape, len(s.args))
			for j, a := range s.args {
				in[j] = r.shapes[a]
			}
			r.fns[k] = r.onBackendAcc(s.op.(adder), be, in, r.shapes[s.out])
		}
	}
	r.stackGradGroups(m, be, onDevice)
	if err := r.plan(m, nodes); err != nil {
		r.free()
		return nil, err
	}
	m.watched, m.nodes = nil, nil
	for name := range names {
		r.hostOp = append(r.hostOp, name)
	}
	sort.Strings(r.hostOp)
	m.dev = r
	return m, nil
}

// onBackend is an op's forward on a device backend's buffers.
func (r *devRun) onBackend(op forwarder, be backend.Backend, in []tensor.Shape, out tensor.Shape) deviceFn {
	return r.onBuffers(be, in, out, op.forward)
}

// onBackendAcc is an op's accumulate on a device backend's buffers: it
// adds its result into its output's buffer, its fused Add's (fuseAdds).
func (r *devRun) onBackendAcc(op adder, be backend.Backend, in []tensor.Shape, out tensor.Shape) deviceFn {
	return r.onBuffers(be, in, out, func(c *call) error { return op.accumulate(c, c.out) })
}

// onBuffers runs f on a call whose operands and output are a step's
// device buffers (one call, reused every run).
func (r *devRun) onBuffers(be backend.Backend, in []tensor.Shape, out tensor.Shape, f func(*call) error) deviceFn {
	c := &call{be: be, in: make([]backend.Buf, len(in)), sh: in, osh: out, dev: r}
	return func(out backend.Buf, args []backend.Buf) error {
		c.out, c.ti = out, 0
		copy(c.in, args)
		return f(c)
	}
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

// ownedBytes is what the ops' scratch buffers hold.
func (r *devRun) ownedBytes() int64 {
	var n int64
	for _, b := range r.owned {
		n += 4 * int64(b.Len())
	}
	return n
}

func (r *devRun) free() {
	for _, s := range r.sites {
		if s != nil {
			s.Release()
		}
	}
	r.sites = nil
	for _, b := range r.owned {
		r.be.Free(b)
	}
	r.owned = nil
	for _, b := range r.allocs {
		r.be.Free(b)
	}
	r.allocs = nil
}

// plan gives every value a device buffer, as the host's memory plan gives
// it an offset (plan.go): an input its own, kept from run to run (what was
// sent stays there); a computed value one shared with the values of its
// size whose lifetimes do not overlap its own, from the step that computes
// it to the last step that reads it (to the end of the run when watched).
// A device buffer has no offsets, so values share whole buffers of one
// size: the graphs' values come in few sizes (a step's [B, H] states, its
// [B, S] scores), each many times over.
func (r *devRun) plan(m *Machine, nodes []*Node) error {
	alloc := func(i int) error {
		b, err := r.be.Alloc(max(1, r.shapes[i].TotalSize()))
		if err != nil {
			return fmt.Errorf("gx: node %s %v on %s: %w", nodes[i].Name(), r.shapes[i], r.be.Name(), err)
		}
		r.bufs[i] = b
		r.allocs = append(r.allocs, b)
		return nil
	}
	for i := range r.inputs {
		if _, ok := r.params[i]; !ok {
			if err := alloc(i); err != nil {
				return err
			}
		}
	}
	inputs := len(r.allocs)
	defer func() {
		for _, b := range r.allocs[inputs:] {
			r.allocBytes += 4 * int64(b.Len())
		}
	}()
	end := len(m.steps)
	last := make([]int, len(nodes)) // the last step that reads each value
	for k, s := range m.steps {
		last[s.out] = max(last[s.out], k)
		for _, a := range s.args {
			last[a] = max(last[a], k)
		}
	}
	for i, w := range m.watched {
		if w {
			last[i] = end
		}
	}
	for _, g := range r.unstack.lead { // Rows copied together live from the first's step
		for _, j := range g {
			last[m.steps[j].out] = max(last[m.steps[j].out], g[len(g)-1])
		}
	}
	r.stk.extendLives(last) // a stacked operand lives until its copy
	alias := r.fuse.alias   // a folded Add's value and its product's share one buffer
	for v, root := range alias {
		last[root] = max(last[root], last[v])
	}
	release := make([][]int, end+1) // by step: the values whose last reader it is
	for _, s := range m.steps {
		if alias[s.out] == s.out {
			release[last[s.out]] = append(release[last[s.out]], s.out)
		}
	}
	free := map[int][]backend.Buf{} // by size
	var offs freeList               // the same lifetimes at offsets, as the host plans them
	off := make([]int, len(nodes))
	take := func(n int) (backend.Buf, int, error) { // a buffer of n values, and its offset
		o := offs.alloc(n)
		if l := free[n]; len(l) > 0 {
			b := l[len(l)-1]
			free[n] = l[:len(l)-1]
			return b, o, nil
		}
		b, err := r.be.Alloc(n)
		if err == nil {
			r.allocs = append(r.allocs, b)
		}
		return b, o, err
	}
	var stacks []*gradStack
	if r.stk != nil {
		stacks = r.stk.stacks
	}
	stackOff := make([]int, len(stacks))
	place := func(v int) error { // a computed value's buffer
		b, o, err := take(max(1, r.shapes[v].TotalSize()))
		if err != nil {
			return fmt.Errorf("gx: node %s %v on %s: %w", nodes[v].Name(), r.shapes[v], r.be.Name(), err)
		}
		r.bufs[v], off[v] = b, o
		return nil
	}
	for k, s := range m.steps {
		if k > 0 {
			for _, j := range release[k-1] {
				n := r.bufs[j].Len()
				free[n] = append(free[n], r.bufs[j])
				offs.free(off[j], n)
			}
			for i, st := range stacks { // a stack's working buffer, after its last reader
				if st.to == k-1 {
					n := r.stk.bufs[i].Len()
					free[n] = append(free[n], r.stk.bufs[i])
					offs.free(stackOff[i], n)
				}
			}
		}
		for i, st := range stacks { // from its first copy
			if st.from == k {
				n := len(st.vals) * st.n
				var err error
				if r.stk.bufs[i], stackOff[i], err = take(n); err != nil {
					return fmt.Errorf("gx: %d values of %d stacked on %s: %w", len(st.vals), st.n, r.be.Name(), err)
				}
			}
		}
		if root := alias[s.out]; root != s.out {
			r.bufs[s.out] = r.bufs[root]
			continue
		}
		if err := place(s.out); err != nil {
			return err
		}
	}
	r.planBytes = 4 * int64(offs.top)
	return nil
}

// DeviceBytes is what a device machine allocated for its computed values
// (not its inputs, not its ops' working buffers), and what the same
// lifetimes would need at offsets in one buffer, as the host plans them:
// 0 on the host.
func (m *Machine) DeviceBytes() (allocated, planned int64) {
	if m.dev == nil {
		return 0, 0
	}
	return m.dev.allocBytes, m.dev.planBytes
}

// runDevice is Run on a device.
func (m *Machine) runDevice() error {
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
		if r.preset[in.idx] {
			r.devAt[in.idx] = r.gen
			delete(r.preset, in.idx)
			delete(r.sent, in.idx) // the buffer no longer holds what was sent
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
			if err := r.runAt(k, fn, r.bufs[s.out], r.argb[k]); err != nil {
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
	for _, rd := range m.reads {
		*rd.into = &lazyRead{r: r, idx: rd.idx, gen: r.gen, node: rd.node}
	}
	return nil
}

// runAt runs step k's forward at its call site: its launches reuse what
// the backend kept from the step's earlier runs (backend.Sited; the same
// buffers every run: the plan fixes them).
func (r *devRun) runAt(k int, fn deviceFn, out backend.Buf, args []backend.Buf) error {
	if r.sites == nil {
		return fn(out, args)
	}
	r.sited.At(r.sites[k])
	defer r.sited.At(nil)
	return fn(out, args)
}

// lazyRead stands for a watched node's value on a device until it is
// asked for (Graph.View, Value): most watched values of a training step,
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

// Buffer is node n's buffer on the device after a run, holding this run's
// value (written there first if it was computed on the host). It stays
// valid until the next run.
func (m *Machine) Buffer(n *Node) (backend.Buf, error) {
	if m.dev == nil {
		return backend.Buf{}, fmt.Errorf("gx: node %s: the machine runs on the host", n.Name())
	}
	i, ok := m.dev.idx[n]
	if !ok {
		return backend.Buf{}, fmt.Errorf("gx: node %s is not in the graph", n.Name())
	}
	if err := m.dev.toDevice(i); err != nil {
		return backend.Buf{}, fmt.Errorf("gx: node %s: %w", n.Name(), err)
	}
	return m.dev.bufs[i], nil
}

// isInput reports whether node i is an input (not computed by a step).
func (r *devRun) isInput(i int) bool { return r.inputs[i] }

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
	// an input holding what its buffer already holds (an initial state of
	// zeros, a constant) is not sent again
	last, isInput := r.sent[i]
	if isInput && slices.Equal(last, src) {
		r.devAt[i] = r.gen
		return nil
	}
	if r.isInput(i) {
		err = r.be.WriteAsync(r.bufs[i], src)
	} else {
		err = r.be.Write(r.bufs[i], src)
	}
	if err != nil {
		return err
	}
	if r.isInput(i) {
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
	if err := r.be.Read(dst, r.bufs[i]); err != nil {
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
