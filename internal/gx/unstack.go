package gx

import (
	"fmt"

	"github.com/attnzoo/attnzoo/internal/backend"
)

// StackRows' gradient is the stacked gradient's block of each position,
// [B, H] rows t·B.. of G [T·B, H]: as Rows, a copy a position (a launch on
// a device, 13 at the anchor). For a backend that declares it
// (backend.FuseUnstack) Grad builds them as Unstack ops instead, which
// compute the same values and which the machine places as views of G, no
// copy made: at an offset of G's in the arena's slab on the host, a
// sub-buffer of G's buffer on a device (backend.Viewer). A view is written
// where a folded Add sums into it (fold.go), which writes G's
// block: the machine makes views only of a G that nothing but Unstack ops
// reads (their blocks are disjoint) and that is not watched, computed by a
// step on the backend, and on a device only at offsets where its memory
// can start a view. Elsewhere an Unstack copies its block as a Rows does.
// G then lives as long as its views.
type unstackOp struct{ rowsOp }

func newUnstack(lo, hi int) *unstackOp {
	return &unstackOp{rowsOp{base{name: "Unstack", args: fmt.Sprint(lo, ":", hi), in: []int{2}, out: 2}, lo, hi}}
}

// unstackViews tells the StackRows the cost depends on whether their
// gradient is built of Unstack ops: where the graph's target declares them.
func (g *Graph) unstackViews(cost *Node) {
	views := g.fuses(backend.FuseUnstack)
	for _, n := range g.reached(cost) {
		if op, ok := n.Op().(*stackRowsOp); ok {
			op.views = views
		}
	}
}

// rowView is a value placed as a view of another: values [off, off+n) of
// value of's buffer.
type rowView struct{ of, off, n int }

// rowViews finds the Unstack steps whose value the plan places as a view
// of their operand (per step; nil where none), and makes them run nothing.
// slab: the values are at offsets in the arena's slab.
func (r *devRun) rowViews(m *Machine, slab bool) map[int]rowView {
	stepOf := make([]int, len(m.vals))
	for i := range stepOf {
		stepOf[i] = -1
	}
	only := make([]bool, len(m.vals)) // read by Unstack steps alone
	for i := range only {
		only[i] = true
	}
	for k, s := range m.steps {
		stepOf[s.out] = k
		_, ok := s.op.(*unstackOp)
		for _, a := range s.args {
			only[a] = only[a] && ok
		}
	}
	vw, _ := r.be.(backend.Viewer)
	var out map[int]rowView
	for k, s := range m.steps {
		op, ok := s.op.(*unstackOp)
		if !ok || len(s.args) != 1 {
			continue
		}
		x := s.args[0]
		p := stepOf[x]
		if p < 0 || r.fns[p] == nil || !only[x] || (m.watched != nil && m.watched[x]) {
			continue
		}
		off := op.lo * r.shapes[x][1]
		if !slab && (vw == nil || !vw.ViewAt(off)) {
			continue
		}
		if out == nil {
			out = map[int]rowView{}
		}
		out[k] = rowView{of: x, off: off, n: size(r.shapes[s.out])}
		r.fns[k] = func(backend.Buf, []backend.Buf) error { return nil }
	}
	return out
}

// placeViews gives the views their buffers, once their operands' owners
// (root: fuseAdds' alias) have theirs: on the slab an offset in the
// owner's slot (at), on a device a sub-buffer of the owner's buffer.
func (r *devRun) placeViews(m *Machine, root []int, at map[int]slabSlot, slab bool) error {
	for k, w := range r.views {
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
