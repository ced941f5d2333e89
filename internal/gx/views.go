package gx

import (
	"fmt"
	"maps"
	"slices"

	"github.com/attnzoo/attnzoo/internal/backend"
	"gorgonia.org/tensor"
)

// Some ops only copy a part of their first operand's value out: a block of
// a stacked gradient (Unstack, unstack.go), a part of the fused
// attention's packed tensor or a gradient cut out of its flat one
// (ops_attend.go: attendPartOp, unflatOp). The machine places the value of
// such a step as a view of the operand instead, no copy made (on a device
// a launch fewer): at an offset of the operand's in the arena's slab on
// the host, a sub-buffer of its buffer on a device (backend.Viewer), where
// the operand is computed by a step on the backend and not watched, and on
// a device only at an offset where its memory can start a view (the
// attention pads its parts to that: viewAlign). The operand then lives as
// long as its views. Elsewhere the op copies.
//
// A value is written after its step where a gradient sum folds into it or
// sums in place (fold.go); as a view, that writes the operand's memory.
// Where something other than views reads the operand (the attention's
// backward reads its packed tensor), or views of it overlap, a value that
// is written is copied, not viewed: fuseAdds decides as for copies, and
// the numbers are the copies'.
type viewer interface {
	// viewOff is where the op's value starts in its first operand's, for
	// its operands' shapes; < 0: nowhere.
	viewOff(in []tensor.Shape) int
}

// makeViews turns the views on (tests count the copies without them).
var makeViews = true

// view is a value placed as a view of another: values [off, off+n) of
// value of's buffer.
type view struct{ of, off, n int }

// findViews finds the steps whose value the plan may place as a view of
// their operand (per step; nil where none); fixed (per value) marks the
// views that must not be written, and cover (per value) is the size of the
// parts that viewing steps read out of it, views or not. slab: the values
// are at offsets in the arena's slab.
func (r *devRun) findViews(m *Machine, slab bool) (out map[int]view, fixed []bool, cover []int) {
	only := slices.Repeat([]bool{true}, len(m.stepOf)) // read by viewing steps alone
	for _, s := range m.steps {
		_, ok := s.op.(viewer)
		for j, a := range s.args {
			only[a] = only[a] && ok && j == 0
		}
	}
	vw, _ := r.be.(backend.Viewer)
	out, fixed, cover = map[int]view{}, make([]bool, len(m.stepOf)), make([]int, len(m.stepOf))
	if !makeViews {
		return nil, fixed, cover
	}
	for k, s := range m.steps {
		op, ok := s.op.(viewer)
		if !ok || len(s.args) == 0 || r.fns[k] == nil {
			continue
		}
		x := s.args[0]
		cover[x] += size(r.shapes[s.out])
		p := m.stepOf[x]
		if p < 0 || r.fns[p] == nil || m.watched[x] {
			continue
		}
		if _, ok := m.steps[p].op.(viewer); ok { // not a view of a view
			continue
		}
		off := op.viewOff(r.argShapes(&s))
		if off < 0 || !slab && (vw == nil || !vw.ViewAt(off)) {
			continue
		}
		out[k] = view{of: x, off: off, n: size(r.shapes[s.out])}
		fixed[s.out] = !only[x]
	}
	for k, w := range out { // views of one operand that overlap: neither is written
		for j, u := range out {
			if j != k && u.of == w.of && u.off < w.off+w.n && w.off < u.off+u.n {
				fixed[m.steps[k].out] = true
			}
		}
	}
	return out, fixed, cover
}

// keepViews keeps the views fuseAdds left alone (f: a view folded into a
// sum adds its part instead; a fixed one that a sum is written into is
// copied) and that keep no more memory than they spare: a view that is
// read after its operand's last other read keeps the whole operand alive,
// so it is made only where the parts read out of the operand (cover) are
// at least half of it (a stacked gradient's blocks; not the parts of the
// additive attention's packed tensor, most of it the score's tanh, where
// decoding keeps each position's weights). The views kept run nothing.
func (r *devRun) keepViews(m *Machine, views map[int]view, fixed []bool, cover []int, f *devFusion) map[int]view {
	n := len(f.alias)
	written := make([]bool, n)
	for v, root := range f.alias {
		written[root] = written[root] || root != v
	}
	for k := range views {
		if v := m.steps[k].out; f.acc[k] || fixed[v] && written[v] {
			delete(views, k)
		}
	}
	last := make([]int, n)               // per group (f.alias): its last read
	other := slices.Repeat([]int{-1}, n) // per value: its last read by a step not a view
	for k, s := range m.steps {
		_, isView := views[k]
		for _, a := range s.args {
			last[f.alias[a]] = max(last[f.alias[a]], k)
			if !isView {
				other[a] = max(other[a], k)
			}
		}
	}
	for i, w := range m.watched {
		if w {
			last[f.alias[i]] = len(m.steps)
		}
	}
	for k, w := range views {
		rt := f.alias[w.of] // the buffer viewed must be one the plan places
		if p := m.stepOf[rt]; last[m.steps[k].out] > other[w.of] && 2*cover[w.of] < size(r.shapes[w.of]) ||
			p < 0 || r.fns[p] == nil || len(r.shapes[rt]) == 0 {
			delete(views, k)
			continue
		}
		r.fns[k] = func(backend.Buf, []backend.Buf) error { return nil }
	}
	return views
}

// viewAlign is the alignment, in values, at which be starts a view
// (backend.Viewer): the least power of two up to 4096 it accepts; 1 where
// it has none, or views anywhere (the cpu's slab).
func viewAlign(be backend.Backend) int {
	vw, ok := be.(backend.Viewer)
	if !ok {
		return 1
	}
	for a := 1; a <= 4096; a *= 2 {
		if vw.ViewAt(a) {
			return a
		}
	}
	return 1
}

// placeViews gives the views their buffers, once their operands' owners
// (root: fuseAdds' alias) have theirs: on the slab an offset in the
// owner's slot (at), on a device a sub-buffer of the owner's buffer.
func (r *devRun) placeViews(m *Machine, root []int, at map[int]slabSlot, slab bool) error {
	// in step order: a view's operand may share the buffer of an earlier
	// view (a sum folded into it), placed first
	for _, k := range slices.Sorted(maps.Keys(r.views)) {
		w := r.views[k]
		v, base := m.steps[k].out, root[w.of]
		if slab {
			t, ok := at[base]
			if !ok {
				return fmt.Errorf("gx: node %s as a view: its operand has no place in the slab", m.steps[k].node.Name())
			}
			at[v] = slabSlot{v: v, off: t.off + w.off, n: w.n}
			r.slabs = append(r.slabs, at[v])
			continue
		}
		b, err := r.be.(backend.Viewer).View(r.bufs[base], w.off, w.n)
		if err != nil {
			return fmt.Errorf("gx: node %s as a view: %w", m.steps[k].node.Name(), err)
		}
		r.viewBufs = append(r.viewBufs, b)
		r.bufs[v] = b
	}
	return nil
}
