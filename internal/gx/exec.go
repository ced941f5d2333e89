package gx

import (
	"fmt"
	"github.com/attnzoo/attnzoo/internal/gx/kern"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Machine runs a compiled graph: every op node once, in the order of
// gorgonia's own tape machine (Sort, reversed), each calling its op's Do
// on its children's values.
//
// We run graphs ourselves rather than on gorgonia's tape machine because
// the tape machine's per-op overhead is most of the cost of a small model
// and does not scale across cores. Per op it formats log arguments (an
// allocation), looks the node up in a map and rebinds it; per run it locks
// the OS thread and hands the work to a fresh goroutine. The measurement
// (BenchmarkMachineOverhead) is in bench/README.md, "Design measurements".
//
// Every value an op of ours or the machine's Add computes lives in the
// machine's arena, at the offset its plan gave it (plan.go): reused once the
// last step that reads it has run, so a graph needs the memory of the
// values alive at once, not of every node, and a run allocates almost
// nothing. Of gorgonia's own ops our graphs hold the Adds its backward pass
// chains to sum a node's gradients (ReduceAdd), the constant that seeds the
// gradient, its sparsemax (Graph.Sparsemax) and whatever a test builds from
// gorgonia directly. The Adds run here, a chain of them accumulating in one
// buffer: an Add whose operand is another Add of this machine, read by
// nothing else and not watched, adds into that operand's buffer (each sum
// is the same bit for bit). Anything else runs its op's Do, which never
// writes into its inputs; an op not ours may return a view of an input, so
// the plan keeps the inputs of such an op alive as long as its value.
//
// Values read after a run (Watch, View) stay valid until the next run of a
// machine of the same arena.
type Machine struct {
	run    *runState
	vals   []G.Value // per node, in run order
	inputs []slot    // inputs and constants: their value is read each run
	steps  []step
	reads  []slot  // watched nodes: *into = vals[idx] after each run
	dev    *devRun // set by MachineOn: the values live on a device
	plan   *plan   // where each step's value lives in the arena (host machines)

	inputBytes int64 // what its own inputs hold (HeldBytes)

	watched []bool  // per value: for the plans (makePlan, devRun.plan)
	nodes   []*Node // per value
	dt      tensor.Dtype
}

type slot struct {
	idx  int
	node *Node
	into *G.Value
}

type step struct {
	node *Node
	op   G.Op
	args []int     // children's indices in vals
	argv []G.Value // the children's values, reused
	out  int       // this node's index in vals
	add  bool      // a + b of two same-shape tensors (gorgonia's elemBinOp +)
	into int       // for add: the operand whose buffer receives the sum, or -1
	buf  *tensor.Dense

	// A product that only feeds an Add (a weight gradient summed over the
	// steps that read the weight) is not run on its own: the Add runs it,
	// accumulating into its own buffer (the GEMM's β = 1) instead of a
	// product into a buffer of its own and then a sum.
	deferred bool // this step is run by the Add that reads it
	fuse     int  // for add: the step index (in steps) of the deferred operand, or -1
	fuseArg  int  // for add: which operand (0 or 1) it is
}

// Machine compiles the graph into an arena of its own. Close it when done.
// It refuses a graph in which two nodes share a hash (ErrHashCollision).
func (g *Graph) Machine() (*Machine, error) {
	if g.run.arena == nil {
		g.run.arena = NewArena()
	}
	m, err := g.compile()
	if err != nil {
		return nil, err
	}
	m.plan = m.makePlan()
	a := g.run.arena
	m.plan.a = a
	if a.machines == nil {
		a.machines = map[*Machine]bool{}
	}
	a.machines[m] = true
	m.watched, m.nodes = nil, nil
	return m, nil
}

// MachineIn compiles the graph into arena a, shared with the other
// machines compiled into it (Arena).
func (g *Graph) MachineIn(a *Arena) (*Machine, error) {
	g.run.arena = a
	return g.Machine()
}

// compile orders the graph's steps, for Machine and MachineOn.
func (g *Graph) compile() (*Machine, error) {
	if g.err != nil {
		return nil, g.err
	}
	if err := g.checkHashes(); err != nil {
		return nil, err
	}
	sorted, err := G.Sort(g.g)
	if err != nil {
		return nil, fmt.Errorf("gx: %w", err)
	}
	m := &Machine{run: g.run, vals: make([]G.Value, len(sorted)), nodes: make([]*Node, len(sorted)), dt: g.dt}
	idx := make(map[*Node]int, len(sorted))
	for i := range sorted {
		n := sorted[len(sorted)-1-i] // children first
		idx[n] = i
		m.nodes[i] = n
	}
	uses := make([]int, len(sorted))
	watched := make([]bool, len(sorted))
	for n, into := range g.reads {
		i, ok := idx[n]
		if !ok {
			return nil, fmt.Errorf("gx: watched node %s is not in the graph", n.Name())
		}
		watched[i] = true
		m.reads = append(m.reads, slot{idx: i, node: n, into: into})
	}
	for i := range sorted {
		n := sorted[len(sorted)-1-i]
		op := n.Op()
		if op == nil || isConstant(op) {
			m.inputs = append(m.inputs, slot{idx: i, node: n})
			continue
		}
		var args []int
		for it := g.g.From(n.ID()); it.Next(); {
			c := it.Node().(*Node)
			j, ok := idx[c]
			if !ok || j >= i {
				return nil, fmt.Errorf("gx: node %s: child %s is not computed before it", n.Name(), c.Name())
			}
			args = append(args, j)
			uses[j]++
		}
		m.steps = append(m.steps, step{node: n, op: op, args: args, argv: make([]G.Value, len(args)), out: i,
			add: isAdd(op) && len(args) == 2, into: -1, fuse: -1})
	}
	m.steps = dropUnread(m.steps, uses, watched)
	stepOf := make(map[int]int, len(m.steps)) // node index → step index
	for k, st := range m.steps {
		stepOf[st.out] = k
	}
	// an Add may sum into an operand's buffer when that operand is an Add
	// of this machine (its buffer is ours), read by this Add alone and not
	// watched; each chain of Adds then shares one buffer
	ownAdd := map[int]bool{}
	for k := range m.steps {
		s := &m.steps[k]
		if !s.add {
			continue
		}
		for _, a := range s.args {
			if ownAdd[a] && uses[a] == 1 && !watched[a] {
				s.into = a
				break
			}
		}
		ownAdd[s.out] = true
		for j, a := range s.args {
			p, ok := stepOf[a]
			if _, acc := m.steps[p].op.(accumulating); ok && acc && uses[a] == 1 && !watched[a] && s.args[0] != s.args[1] {
				s.fuse, s.fuseArg = p, j
				m.steps[p].deferred = true
				break
			}
		}
	}
	m.watched = watched
	m.inputBytes = g.ownInputBytes(m.inputs)
	return m, nil
}

// ownInputBytes is what the inputs hold that are the graph's own: not a
// bound parameter's value, nor an arena's shared input.
func (g *Graph) ownInputBytes(inputs []slot) int64 {
	bound := map[*Node]bool{}
	for _, n := range g.bound {
		bound[n] = true
	}
	shared := map[*tensor.Dense]bool{}
	if a := g.run.arena; a != nil {
		for _, t := range a.inputs {
			shared[t] = true
		}
	}
	var n int64
	for _, in := range inputs {
		t, ok := in.node.Value().(*tensor.Dense)
		if !ok || bound[in.node] || shared[t] {
			continue
		}
		n += int64(t.DataSize()) * int64(t.Dtype().Size())
	}
	return n
}

// Run runs the whole graph once.
func (m *Machine) Run() error {
	a := m.run.a()
	a.runs++
	be := a.backend()
	if m.dev != nil {
		be = m.dev.be
	}
	be.NewRun() // the weights it prepared may have changed
	return m.exec()
}

// RunAgain is Run for a caller that has changed no weight the graph binds
// since its last run: the products use the weights packed for that run
// again instead of packing them anew (a decoding graph run once per token:
// at the anchor, beam search packed ~150,000 weight values at each of its
// 13 steps). Changed inputs that are not weights are read as by Run.
func (m *Machine) RunAgain() error { return m.exec() }

func (m *Machine) exec() error {
	if m.dev != nil {
		return m.runDevice()
	}
	p := m.plan
	p.prepare() // first: a slab grown anew clears every machine's values
	for _, in := range m.inputs {
		m.vals[in.idx] = in.node.Value()
	}
	for k := range m.steps {
		s := &m.steps[k]
		for j, a := range s.args {
			s.argv[j] = m.vals[a]
		}
		var t *tensor.Dense
		if i := p.slot[k]; i >= 0 {
			t = p.slots[i].t
			if s.add {
				s.buf = t
			} else {
				s.op.(planned).setOut(t)
			}
		}
		p.a.next = 0
		var v G.Value
		var err error
		switch {
		case s.deferred: // run by the Add that reads it
			continue
		case s.add && s.fuse >= 0:
			v, err = m.addFused(s)
		case s.add:
			v, err = m.add(s)
		default:
			v, err = s.op.Do(s.argv...)
		}
		if err != nil {
			return fmt.Errorf("gx: node %s (%v): %w", s.node.Name(), s.op, err)
		}
		if err := m.checkPlanned(s, v, t); err != nil {
			return err
		}
		m.vals[s.out] = v
	}
	for _, r := range m.reads {
		*r.into = m.vals[r.idx]
	}
	return nil
}

// add sums the step's two operands into its own buffer, or into the
// operand's buffer chosen at compile time; other operands (scalars,
// broadcasts, mixed dtypes) go to gorgonia's op.
func (m *Machine) add(s *step) (G.Value, error) {
	a, b := s.argv[0], s.argv[1]
	ta, okA := a.(*tensor.Dense)
	tb, okB := b.(*tensor.Dense)
	if !okA || !okB || ta.Dtype() != tb.Dtype() || !ta.Shape().Eq(tb.Shape()) {
		return s.op.Do(a, b)
	}
	va, okA := dense(ta)
	vb, okB := dense(tb)
	if !okA || !okB || va.Len() == 0 {
		return s.op.Do(a, b)
	}
	if s.into >= 0 {
		dst := m.vals[s.into].(*tensor.Dense)
		vd, _ := dense(dst)
		addInto(vd, va, vb)
		return dst, nil
	}
	if s.buf == nil || s.buf.Dtype() != ta.Dtype() || !s.buf.Shape().Eq(ta.Shape()) {
		s.buf = tensor.New(tensor.Of(ta.Dtype()), tensor.WithShape(ta.Shape().Clone()...))
	}
	vd, _ := dense(s.buf)
	addInto(vd, va, vb)
	return s.buf, nil
}

// addFused is add with one operand a deferred product: the other operand
// goes to the sum's buffer (or is already there: the Add chain's), and the
// product accumulates into it. Where that cannot be, the product runs on
// its own and the sum as add does.
func (m *Machine) addFused(s *step) (G.Value, error) {
	p := &m.steps[s.fuse]
	for j, a := range p.args {
		p.argv[j] = m.vals[a]
	}
	other := s.argv[1-s.fuseArg]
	to, ok := other.(*tensor.Dense)
	var dst *tensor.Dense
	if ok && !to.IsScalar() && !to.IsView() {
		if s.into >= 0 {
			dst = m.vals[s.into].(*tensor.Dense) // holds other: the chain's buffer
		} else {
			if s.buf == nil || s.buf.Dtype() != to.Dtype() || !s.buf.Shape().Eq(to.Shape()) {
				s.buf = tensor.New(tensor.Of(to.Dtype()), tensor.WithShape(to.Shape().Clone()...))
			}
			dst = s.buf
		}
	}
	if dst != nil {
		if dst != to {
			vo, ok1 := dense(to)
			vd, ok2 := dense(dst)
			if !ok1 || !ok2 {
				dst = nil
			} else {
				copy(vd.F32, vo.F32)
				copy(vd.F64, vo.F64)
			}
		}
	}
	if dst != nil {
		done, err := p.op.(accumulating).accumulateDo(p.argv, dst)
		if err != nil {
			return nil, fmt.Errorf("gx: node %s (%v): %w", p.node.Name(), p.op, err)
		}
		if done {
			return dst, nil
		}
	}
	// apart: the product, then the sum
	v, err := p.op.Do(p.argv...)
	if err != nil {
		return nil, fmt.Errorf("gx: node %s (%v): %w", p.node.Name(), p.op, err)
	}
	m.vals[p.out] = v
	s.argv[s.fuseArg] = v
	return m.add(s)
}

// nodeBytes is what a node of a compiled graph holds on the Go heap:
// gorgonia's node and its op, our op's operand lists, the machine's step.
// Measured: a 10,007-node graph (tanh of products and their gradients,
// compiled and run) grew the heap by 17.3 MB, 1,729 bytes a node (Go 1.26,
// gorgonia 0.9.18; TestHeldBytes checks the bound within 2×).
const nodeBytes = 1729

// HeldBytes is what the machine holds of its own, apart from the arena it
// shares: its nodes, the values of its inputs (not a bound parameter's nor
// an arena's shared input), the values its ops computed outside the plan,
// and on a device its buffers.
func (m *Machine) HeldBytes() int64 {
	n := int64(len(m.vals))*nodeBytes + m.inputBytes
	if m.plan != nil {
		n += m.plan.strayBytes
	}
	if m.dev != nil {
		n += m.dev.allocBytes + m.dev.ownedBytes()
	}
	return n
}

// Close releases the machine (and its device buffers).
func (m *Machine) Close() error {
	if m.plan != nil {
		delete(m.plan.a.machines, m)
	}
	if m.dev != nil {
		m.dev.free()
		m.dev = nil
	}
	return nil
}

// Run compiles, runs once and closes: the simplest way to evaluate a graph.
func (g *Graph) Run() error {
	m, err := g.Machine()
	if err != nil {
		return err
	}
	defer m.Close()
	return m.Run()
}

// dense returns t's data as its own slice type when Add may work on it
// directly: a dense, contiguous, unmasked float tensor that is not a view.
func dense(t tensor.Tensor) (Vec, bool) {
	d, ok := t.(*tensor.Dense)
	if !ok || d.IsView() || d.IsScalar() || d.RequiresIterator() {
		return Vec{}, false
	}
	var v Vec
	switch d.Dtype() {
	case Float32:
		v.F32 = d.Float32s()
	case Float64:
		v.F64 = d.Float64s()
	default:
		return Vec{}, false
	}
	return v, v.Len() == d.Shape().TotalSize()
}

func same(a, b Vec) bool {
	if a.F32 != nil && b.F32 != nil {
		return &a.F32[0] == &b.F32[0]
	}
	if a.F64 != nil && b.F64 != nil {
		return &a.F64[0] == &b.F64[0]
	}
	return false
}

// addInto sets dst = a + b, for dst one of a and b or apart from both.
func addInto(dst, a, b Vec) {
	switch {
	case same(dst, a):
		axpyVec(b, dst)
	case same(dst, b):
		axpyVec(a, dst)
	default:
		copy(dst.F32, a.F32)
		copy(dst.F64, a.F64)
		axpyVec(b, dst)
	}
}

func axpyVec(x, y Vec) {
	if x.F32 != nil {
		kern.Axpy(1, x.F32, y.F32)
	} else {
		kern.Axpy(1, x.F64, y.F64)
	}
}

// copyOut is an op that only copies a part out of another op's value (the
// fused attention's scores and weights, ops_attend.go): where nothing
// reads its value and it is not watched, the machine does not run it.
type copyOut interface{ copyOut() }

// dropUnread removes the steps of copyOut ops whose value nobody reads,
// last first, and updates uses.
func dropUnread(steps []step, uses []int, watched []bool) []step {
	keep := steps[:0]
	drop := make([]bool, len(steps))
	for k := len(steps) - 1; k >= 0; k-- {
		s := &steps[k]
		if _, ok := s.op.(copyOut); ok && uses[s.out] == 0 && !watched[s.out] {
			drop[k] = true
			for _, a := range s.args {
				uses[a]--
			}
		}
	}
	for k, s := range steps {
		if !drop[k] {
			keep = append(keep, s)
		}
	}
	return keep
}
