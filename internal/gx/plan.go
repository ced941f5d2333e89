package gx

import (
	"fmt"
	"runtime/debug"
	"slices"

	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/gx/kern"
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

	be backend.Backend // the host backend its machines compute through (backend)
}

// NewArena returns an empty arena.
func NewArena() *Arena {
	return &Arena{machines: map[*Machine]bool{}, inputs: map[string]*tensor.Dense{}}
}

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
	n32, n64 = max(n32, len(a.f32)), max(n64, len(a.f64))
	// every machine lets go of the old slab (its values, its ops' buffers,
	// what was read from it: none is valid once another machine runs), and
	// a large one goes back to the system before the new one is allocated,
	// so the two are never held at once (the collector would otherwise keep
	// the old one until its next cycle)
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

// worker is implemented by the ops that take working buffers of the arena
// (call.temp): the sizes they take, in values and in order, for inputs
// of the given shapes.
type worker interface{ workspace(in []tensor.Shape) []int }

// align is the offsets' granularity in values: 64 bytes for float32, a
// cache line and an AVX-512 register.
const align = 16

// slabSlot is a host machine's value at an offset of its arena's slab.
type slabSlot struct{ v, off, n int }

// plan gives every computed value its memory, by liveness: a value lives
// from the step that writes it to the last step that reads it (to the end
// of the run when watched), and its memory is reused by values written
// after that. Values that share one buffer (a folded Add and its operand's,
// fuseAdds) live as one; on the host so do the operands of a host op and
// its value, which may be a view of them. The sweep over the steps places
// each buffer by one of two policies:
//
//   - offsets in one allocation, where the backend's memory has them (the
//     host: the arena's slab, best fit among the free ranges; prepare
//     points the buffers into it), a scalar in a slice of its own;
//   - whole buffers, where it does not (a device): a value takes the
//     smallest buffer freed by a dead value that holds it and is at most
//     twice its size, else a new one; the graphs' values come in few sizes
//     (a step's [B, H] states, its [B, S] scores), each many times over. What the same lifetimes would need at offsets is kept
//     (DeviceBytes).
//
// An input's buffer is its host value's own on the host (set at each run);
// on a device one of its own, kept from run to run (what was sent stays).
func (r *devRun) plan(m *Machine) error {
	nodes := m.nodes
	n, slab, dsize := len(nodes), r.arena != nil, int64(m.dt.Size())
	alloc := func(i, sz int) (backend.Buf, error) {
		b, err := r.be.Alloc(sz)
		if r.f64 && err == nil { // a host scalar: a slice of the graph's dtype
			b = backend.Buf{F64: make([]float64, sz)}
		}
		if err != nil {
			return b, fmt.Errorf("gx: node %s %v on %s: %w", nodes[i].Name(), r.shapes[i], r.be.Name(), err)
		}
		r.allocs = append(r.allocs, b)
		r.allocBytes += dsize * int64(b.Len())
		return b, nil
	}
	for i := range r.sent { // a device's inputs that are not resident
		b, err := alloc(i, size(r.shapes[i]))
		if err != nil {
			return err
		}
		r.bufs[i] = b
	}
	r.allocBytes = 0 // the computed values' alone
	end := len(m.steps)
	last := make([]int, n) // the last step that reads each value
	for k, s := range m.steps {
		last[s.out] = max(last[s.out], k)
		for _, a := range s.args {
			last[a] = max(last[a], k)
		}
	}
	// groups that live as one: union-find over the values
	root := r.fuse.alias // per value: the value whose buffer it shares
	parent := slices.Clone(root)
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	for k, w := range r.views { // a view lives as one with its operand
		parent[find(m.steps[k].out)] = find(w.of)
	}
	if slab {
		for k, s := range m.steps {
			if r.fns[k] == nil { // a host op: its value may be a view of an operand
				for _, a := range s.args {
					parent[find(a)] = find(s.out)
				}
			}
		}
	}
	// the values that cross to or from the host (watched, or a host op's
	// operand or value) are read and written whole: their buffers are of
	// their size
	exact := make([]bool, n)
	for i, w := range m.watched {
		if w {
			last[i], exact[find(i)] = end, true
		}
	}
	first := slices.Repeat([]int{end}, n)
	for k, s := range m.steps {
		g := find(s.out)
		first[g] = min(first[g], k)
		if r.fns[k] == nil {
			exact[g] = true
			for _, a := range s.args {
				exact[find(a)] = true
			}
		}
	}
	for i := range n { // the group's members' reads, its inputs' too
		g := find(i)
		last[g] = max(last[g], last[i])
	}
	// the buffers: each owner's
	type span struct{ v, start, stop, n int }
	var spans []span
	for k, s := range m.steps {
		v := s.out
		if _, ok := r.views[k]; root[v] != v || ok || (slab && r.fns[k] == nil) {
			continue // another's buffer, a view, or a host op's value
		}
		if slab && len(r.shapes[v]) == 0 {
			b, err := alloc(v, 1)
			if err != nil {
				return err
			}
			r.bufs[v] = b
			continue
		}
		g := find(v)
		spans = append(spans, span{v: v, start: first[g], stop: last[g], n: size(r.shapes[v])})
	}
	slices.SortStableFunc(spans, func(a, b span) int { return a.start - b.start })
	order := make([]int, len(spans)) // by stop, to free
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return spans[a].stop - spans[b].stop })
	var offs freeList      // offsets: the slab's, or what a device's buffers would need at offsets
	var pool []backend.Buf // whole buffers: the free ones, by length
	off := make([]int, len(spans))
	bufs := make([]backend.Buf, len(spans))
	for i, j := 0, 0; i < len(spans); i++ {
		sp := spans[i]
		for ; j < len(order) && spans[order[j]].stop < sp.start; j++ {
			o := order[j]
			if slab {
				offs.free(off[o], (spans[o].n+align-1)/align*align)
			} else {
				offs.free(off[o], spans[o].n)
				b := bufs[o]
				at, _ := slices.BinarySearchFunc(pool, b.Len(), func(x backend.Buf, n int) int { return x.Len() - n })
				pool = slices.Insert(pool, at, b)
			}
		}
		if slab {
			off[i] = offs.alloc((sp.n + align - 1) / align * align)
			r.slabs = append(r.slabs, slabSlot{v: sp.v, off: off[i], n: sp.n})
			continue
		}
		off[i] = offs.alloc(sp.n)
		// the smallest free buffer that holds the value, if at most twice
		// its size (best fit: the decoder's values come in few sizes, and
		// a value held until a stack is made would otherwise pin a buffer
		// of its exact size); one of its size for a value that crosses
		at, _ := slices.BinarySearchFunc(pool, sp.n, func(x backend.Buf, n int) int { return x.Len() - n })
		if at < len(pool) && (pool[at].Len() == sp.n || pool[at].Len() <= sp.n*2 && !exact[find(sp.v)]) {
			bufs[i] = pool[at]
			pool = slices.Delete(pool, at, at+1)
		} else {
			var err error
			if bufs[i], err = alloc(sp.v, sp.n); err != nil {
				return err
			}
		}
		r.bufs[sp.v] = bufs[i]
	}
	at := make(map[int]slabSlot, len(r.slabs))
	for _, t := range r.slabs {
		at[t.v] = t
	}
	if err := r.placeViews(m, root, at, slab); err != nil {
		return err
	}
	for _, s := range m.steps { // the values that share another's buffer
		if v := s.out; root[v] != v {
			r.bufs[v] = r.bufs[root[v]]
			if t, ok := at[root[v]]; ok {
				r.slabs = append(r.slabs, slabSlot{v: v, off: t.off, n: t.n})
			}
		}
	}
	if !slab {
		r.planBytes = 4 * int64(offs.top)
		return nil
	}
	r.slabN = offs.top
	for _, s := range m.steps { // the working buffers the ops take from the arena
		w, ok := s.op.(worker)
		if !ok {
			continue
		}
		for j, n := range w.workspace(r.argShapes(&s)) {
			if j == len(r.work) {
				r.work = append(r.work, 0)
			}
			r.work[j] = max(r.work[j], n)
		}
	}
	return nil
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
// slab: its values' buffers, the tensors over them, its last run's values
// and what was read from them.
func (m *Machine) dropSlab() {
	r := m.dev
	for _, s := range r.slabs {
		r.bufs[s.v] = backend.Buf{}
	}
	clear(r.own)
	clear(r.host)
	for k := range m.steps {
		clear(m.steps[k].argv)
	}
	r.gen++ // nothing of the last run is valid
	for _, rd := range m.reads {
		*rd.into = nil
	}
}

// prepare makes the arena's slab hold the plan and the values' buffers
// point into it.
func (m *Machine) prepare() {
	r, a := m.dev, m.arena
	if r.f64 {
		a.reserve(0, r.slabN)
	} else {
		a.reserve(r.slabN, 0)
	}
	if r.slabAt == a.gen {
		return
	}
	for _, s := range r.slabs {
		if r.f64 {
			r.bufs[s.v] = backend.Buf{F64: a.f64[s.off : s.off+s.n : s.off+s.n]}
		} else {
			r.bufs[s.v] = backend.Buf{F32: a.f32[s.off : s.off+s.n : s.off+s.n]}
		}
		r.own[s.v] = nil
	}
	r.slabAt = a.gen
}

// Bytes is what a host machine's plan needs of its arena's slab (0 on a
// device: its plan has no slab, slabN 0).
func (m *Machine) Bytes() int64 {
	if m.dev == nil {
		return 0
	}
	return int64(m.dev.slabN) * int64(m.dt.Size())
}

// WorkBytes is what a host machine's ops take of the arena's working
// buffers (the values of the graph's dtype), by place: the arena keeps the
// most any machine takes at each place.
func (m *Machine) WorkBytes() []int64 {
	if m.dev == nil {
		return nil
	}
	b := int64(m.dt.Size())
	out := make([]int64, len(m.dev.work))
	for i, n := range m.dev.work {
		out[i] = int64(n) * b
	}
	return out
}
