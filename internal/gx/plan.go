package gx

import (
	"fmt"
	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/backend/cpu"
	"runtime/debug"
	"slices"

	"github.com/attnzoo/attnzoo/internal/gx/kern"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Arena is the memory compiled graphs draw their values from: one slab of
// each dtype that holds every value an op of ours or the machine's Add
// computes, at the offset the graph's plan gave it; the ops' working
// buffers, handed out afresh at each op; and the weights packed for the
// products. Graphs compiled into one arena (MachineIn) share all three, so
// the arena holds what the largest of them needs, not their sum: a model's
// graphs for every batch shape, and its decoding graphs, run one at a time.
//
// Machines sharing an arena must not run at the same time, and a value read
// after a run (Watch, View) stays valid until the next run of any machine
// of the arena.
type Arena struct {
	f32  []float32
	f64  []float64
	gen  uint64 // bumped when a slab is allocated anew: machines rebuild their tensors
	runs uint64 // Machine.Run calls: the packed weights' generation

	temps []kern.Scratch // the working buffers of the op that runs, in the order it takes them
	next  int

	machines map[*Machine]bool        // compiled into the arena and not closed
	inputs   map[string]*tensor.Dense // SharedInput's, by name, shape and dtype

	be  backend.Backend // the host backend its machines compute through (nil: own)
	own *cpu.CPU        // the arena's cpu backend
}

// NewArena returns an empty arena.
func NewArena() *Arena { return &Arena{} }

// Bytes is what the arena holds now: the slabs, the working buffers and
// the packed weights.
func (a *Arena) Bytes() int64 {
	n := a.SlabBytes() + a.WorkBytes()
	for _, t := range a.inputs {
		n += int64(t.DataSize()) * int64(t.Dtype().Size())
	}
	if b, ok := a.backend().(interface{ Bytes() int64 }); ok {
		n += b.Bytes() // the weights it keeps prepared
	}
	return n
}

// SlabBytes is the slabs' part of Bytes: the values of the largest plan
// compiled into the arena that has run.
func (a *Arena) SlabBytes() int64 { return int64(cap(a.f32))*4 + int64(cap(a.f64))*8 }

// WorkBytes is the working buffers' part of Bytes.
func (a *Arena) WorkBytes() int64 {
	var n int64
	for _, t := range a.temps {
		n += t.Bytes()
	}
	return n
}

// reserve makes the slabs hold at least n32 float32 and n64 float64 values.
// A slab grows to exactly what is asked: the first graph compiled is
// usually the largest a run needs (the estimate's).
func (a *Arena) reserve(n32, n64 int) {
	if n32 <= len(a.f32) && n64 <= len(a.f64) {
		return
	}
	// let a large old slab go back to the system before the new one is
	// allocated, so the two are never held at once (the collector would
	// otherwise keep the old one until its next cycle)
	n32, n64 = max(n32, len(a.f32)), max(n64, len(a.f64))
	// every machine lets go of the old slab (its values, its ops' buffers,
	// what was read from it: none is valid once another machine runs), so
	// it is not held beside the new one
	for m := range a.machines {
		m.dropSlab()
	}
	if a.SlabBytes() >= releaseBytes {
		a.f32, a.f64 = nil, nil
		debug.FreeOSMemory()
	}
	if n32 > len(a.f32) {
		a.f32 = make([]float32, n32)
	}
	if n64 > len(a.f64) {
		a.f64 = make([]float64, n64)
	}
	a.gen++
}

// releaseBytes is the size of a slab worth a collection to give back.
const releaseBytes = 64 << 20

// temp returns the next working buffer of the op that runs: each op takes
// its buffers in the same order at every run, so the arena keeps as many
// as the most any op takes, each as large as the largest taken at that
// place.
func (a *Arena) temp() *kern.Scratch {
	if a.next == len(a.temps) {
		a.temps = append(a.temps, kern.Scratch{})
	}
	a.next++
	return &a.temps[a.next-1]
}

// plan is a machine's assignment of its values to offsets in the arena's
// slabs: a value's offset is reused once the last step that reads it has
// run (liveness), and a watched value lives to the end of the run.
type plan struct {
	slot       []int // per step: its index in slots, or -1 (not planned)
	slots      []planSlot
	n32, n64   int    // the slabs' sizes this plan needs
	work       []int  // the working buffers its ops take, in values, by place (Arena.temp)
	gen        uint64 // the arena generation the slots' tensors were made for
	a          *Arena
	strays     int // values an op computed outside the plan (a shape the graph did not say)
	strayBytes int64
}

type planSlot struct {
	off, n int
	dt     tensor.Dtype
	shape  tensor.Shape
	t      *tensor.Dense // over the arena's slab from off, remade when the slab is
}

// worker is implemented by the ops that take working buffers of the arena
// (runState.temp): the sizes they take, in values and in order, for inputs
// of the given shapes.
type worker interface{ workspace(in []tensor.Shape) []int }

// planned is implemented by the ops of ours (through base) that write
// their value into a buffer they are given (operands.alloc).
type planned interface{ setOut(*tensor.Dense) }

func (o *base) setOut(t *tensor.Dense) { o.buf = t }

// align is the offsets' granularity in values: 64 bytes for float32, a
// cache line and an AVX-512 register.
const align = 16

// makePlan assigns the steps' values to offsets. A step's value is
// planned when the step is an op of ours or the machine's Add, of a dtype
// the slabs hold and a shape the graph knows. Its lifetime runs from the
// step that writes it to the last step that reads it (the end of the run
// for a watched value); a value that aliases another (an Add summing into
// its operand's buffer, or any op not ours, which may return a view of its
// input) joins that value's lifetime. Offsets are given in a sweep over
// the steps, best fit among the free ranges.
func (m *Machine) makePlan() *plan {
	watched := m.watched
	n := len(m.vals)
	p := &plan{slot: make([]int, len(m.steps))}
	// the time each step runs: a deferred product runs at its Add
	at := make([]int, len(m.steps))
	for k := range m.steps {
		at[k] = k
	}
	for k, s := range m.steps {
		if s.add && s.fuse >= 0 {
			at[s.fuse] = k
		}
	}
	// union-find over values: a group shares its owners' buffers' lifetime
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	union := func(a, b int) { parent[find(a)] = find(b) }
	owner := make([]bool, n)
	for _, s := range m.steps {
		_, ours := s.op.(planned)
		switch {
		case s.add && s.into >= 0:
			union(s.out, s.into)
		case s.deferred:
			// its Add accumulates it into the Add's buffer; where that
			// cannot be, its op computes it apart, outside the plan
		case s.add || ours:
			owner[s.out] = plannable(s.node)
		default: // an op not ours: its value may be a view of any operand
			for _, a := range s.args {
				union(s.out, a)
			}
		}
	}
	// each group's lifetime: first write to last read
	first, last := make([]int, n), make([]int, n)
	for i := range first {
		first[i], last[i] = len(m.steps), -1
	}
	end := len(m.steps)
	for k, s := range m.steps {
		r := find(s.out)
		first[r] = min(first[r], at[k])
		last[r] = max(last[r], at[k])
		for _, a := range s.args {
			ra := find(a)
			last[ra] = max(last[ra], at[k])
		}
	}
	for i := range watched {
		if watched[i] {
			last[find(i)] = end
		}
	}
	// a sweep over time: buffers start at their group's first write and are
	// freed after its last read
	type buf struct {
		step, start, stop, n int
		dt                   tensor.Dtype
	}
	var bufs []buf
	for k, s := range m.steps {
		p.slot[k] = -1
		if !owner[s.out] {
			continue
		}
		r := find(s.out)
		sz := s.node.Shape().TotalSize()
		bufs = append(bufs, buf{step: k, start: first[r], stop: last[r], n: (sz + align - 1) / align * align, dt: s.node.Dtype()})
	}
	slices.SortStableFunc(bufs, func(a, b buf) int { return a.start - b.start })
	frees := map[tensor.Dtype]*freeList{Float32: {}, Float64: {}}
	order := make([]int, len(bufs)) // by stop, to free
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return bufs[a].stop - bufs[b].stop })
	offs := make([]int, len(bufs))
	j := 0
	for i, b := range bufs {
		for j < len(order) && bufs[order[j]].stop < b.start {
			o := bufs[order[j]]
			frees[o.dt].free(offs[order[j]], o.n)
			j++
		}
		offs[i] = frees[b.dt].alloc(b.n)
	}
	p.n32, p.n64 = frees[Float32].top, frees[Float64].top
	for _, s := range m.steps {
		w, ok := s.op.(worker)
		if !ok {
			continue
		}
		in := make([]tensor.Shape, len(s.args))
		for j, a := range s.args {
			in[j] = m.nodes[a].Shape()
		}
		for j, n := range w.workspace(in) {
			if j == len(p.work) {
				p.work = append(p.work, 0)
			}
			p.work[j] = max(p.work[j], n)
		}
	}
	for i, b := range bufs {
		s := m.steps[b.step]
		p.slot[b.step] = len(p.slots)
		p.slots = append(p.slots, planSlot{off: offs[i], n: s.node.Shape().TotalSize(), dt: b.dt, shape: s.node.Shape().Clone()})
	}
	return p
}

// plannable reports whether a node's value can live in the slabs: a float
// tensor (not a scalar) of a shape the graph knows.
func plannable(n *Node) bool {
	dt := n.Dtype()
	if dt != Float32 && dt != Float64 {
		return false
	}
	s := n.Shape()
	return len(s) > 0 && s.TotalSize() > 0 && !s.IsScalar()
}

// freeList is a simulated allocator over offsets: free ranges sorted by
// offset, and the top (the slab's size so far).
type freeList struct {
	spans [][2]int // [off, n]
	top   int
}

// alloc returns the offset of n values: the smallest free range that
// holds them, else the top (extending a free range that ends there).
func (f *freeList) alloc(n int) int {
	best := -1
	for i, s := range f.spans {
		if s[1] >= n && (best < 0 || s[1] < f.spans[best][1]) {
			best = i
		}
	}
	if best >= 0 {
		off := f.spans[best][0]
		if f.spans[best][1] == n {
			f.spans = slices.Delete(f.spans, best, best+1)
		} else {
			f.spans[best] = [2]int{off + n, f.spans[best][1] - n}
		}
		return off
	}
	if k := len(f.spans) - 1; k >= 0 && f.spans[k][0]+f.spans[k][1] == f.top {
		off := f.spans[k][0]
		f.spans = f.spans[:k]
		f.top = off + n
		return off
	}
	off := f.top
	f.top += n
	return off
}

// free returns [off, off+n) to the list, merging it with its neighbours.
func (f *freeList) free(off, n int) {
	i, _ := slices.BinarySearchFunc(f.spans, off, func(s [2]int, off int) int { return s[0] - off })
	f.spans = slices.Insert(f.spans, i, [2]int{off, n})
	if i+1 < len(f.spans) && f.spans[i][0]+f.spans[i][1] == f.spans[i+1][0] {
		f.spans[i][1] += f.spans[i+1][1]
		f.spans = slices.Delete(f.spans, i+1, i+2)
	}
	if i > 0 && f.spans[i-1][0]+f.spans[i-1][1] == f.spans[i][0] {
		f.spans[i-1][1] += f.spans[i][1]
		f.spans = slices.Delete(f.spans, i, i+1)
	}
}

// dropSlab forgets every reference the machine holds into its arena's
// slabs: its slots' tensors, its ops' and Adds' buffers, its last run's
// values and what was read from them.
func (m *Machine) dropSlab() {
	p := m.plan
	for i := range p.slots {
		p.slots[i].t = nil
	}
	for k := range m.steps {
		s := &m.steps[k]
		clear(s.argv)
		if p.slot[k] < 0 {
			continue
		}
		if s.add {
			s.buf = nil
		} else {
			s.op.(planned).setOut(nil)
		}
	}
	clear(m.vals)
	for _, r := range m.reads {
		*r.into = nil
	}
}

// prepare makes the arena hold the plan and the slots' tensors point into
// it.
func (p *plan) prepare() {
	a := p.a
	a.reserve(p.n32, p.n64)
	if p.gen == a.gen && (len(p.slots) == 0 || p.slots[0].t != nil) {
		return
	}
	for i := range p.slots {
		s := &p.slots[i]
		var back any
		if s.dt == Float32 {
			back = a.f32[s.off : s.off+s.n : s.off+s.n]
		} else {
			back = a.f64[s.off : s.off+s.n : s.off+s.n]
		}
		s.t = tensor.New(tensor.WithShape(s.shape.Clone()...), tensor.WithBacking(back))
	}
	p.gen = a.gen
}

// Bytes is what the machine's plan needs of its arena's slabs.
func (m *Machine) Bytes() int64 {
	if m.plan == nil {
		return 0
	}
	return int64(m.plan.n32)*4 + int64(m.plan.n64)*8
}

// WorkBytes is what the machine's ops take of the arena's working buffers
// (the values of the graph's dtype), by place: the arena keeps the most
// any machine takes at each place.
func (m *Machine) WorkBytes() []int64 {
	if m.plan == nil {
		return nil
	}
	b := int64(m.dt.Size())
	out := make([]int64, len(m.plan.work))
	for i, n := range m.plan.work {
		out[i] = int64(n) * b
	}
	return out
}

// Strays counts the values ops computed outside the plan since the machine
// was compiled, and their bytes: zero for a graph whose shapes are all
// known.
func (m *Machine) Strays() (int, int64) {
	if m.plan == nil {
		return 0, 0
	}
	return m.plan.strays, m.plan.strayBytes
}

// checkPlanned verifies that a planned step's value is its slot's buffer.
// An op that computed its value elsewhere (a shape the graph did not
// know) is counted; one that returned an operand's buffer would break the
// plan's lifetimes and is an error.
func (m *Machine) checkPlanned(s *step, v G.Value, t *tensor.Dense) error {
	d, ok := v.(*tensor.Dense)
	if !ok || t == nil || sameData(d, t) {
		return nil
	}
	for _, a := range s.argv {
		if ad, ok := a.(*tensor.Dense); ok && sameData(d, ad) {
			return fmt.Errorf("gx: node %s (%v) returned an operand's buffer: the memory plan cannot hold it", s.node.Name(), s.op)
		}
	}
	m.plan.strays++
	m.plan.strayBytes += int64(d.DataSize()) * int64(d.Dtype().Size())
	return nil
}

func sameData(a, b *tensor.Dense) bool {
	return a.DataSize() > 0 && b.DataSize() > 0 && a.Uintptr() == b.Uintptr()
}
