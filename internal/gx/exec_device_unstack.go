package gx

import (
	"github.com/attnzoo/attnzoo/internal/backend"
)

// StackRows' gradient is a Rows a stacked block: the decoder's stacked
// states' gradient split back into its positions, a copy a position (13
// launches at the anchor). On a backend that copies several blocks of one
// buffer into buffers of their own in one launch (unstacker), the device
// machine runs the Rows of one operand with one shape together: it moves
// them next to the first of them (each reads only that operand, computed
// before the first, so the order stays a valid one) and the first of each
// stackWidth of them copies them all; the others launch nothing. Their
// values then live from the first's step (devRun.plan: liveTo), none
// sharing a buffer with another.

// unstacker is a backend with Unstack: xs[t][i] = src[offs[t] + i], i < n.
type unstacker interface {
	Unstack(xs []backend.Buf, src backend.Buf, offs []int, n int) error
}

// unstackWidth is how many Rows one launch copies (the device's stack8
// and unstack8 take 8 blocks).
const unstackWidth = 8

// unstack is what unstackRows decided: per step, the steps whose Rows it
// copies (the first of each group, itself first) or nil.
type unstack struct {
	lead [][]int
	none []bool // per step: copied by another step's launch
}

// unstackRows reorders the device machine's steps (compiled for it: the
// host machine's are its own) so that the Rows of one operand and shape
// run one after another, and groups them.
func unstackRows(m *Machine, be backend.Backend) *unstack {
	u := &unstack{lead: make([][]int, len(m.steps)), none: make([]bool, len(m.steps))}
	if _, ok := be.(unstacker); !ok || !foldAdds {
		return u
	}
	type key struct{ x, rows int }
	groups := map[key][]int{} // by operand and row count: the Rows steps, in order
	keyOf := make([]*key, len(m.steps))
	for k, s := range m.steps {
		if op, ok := s.op.(*rowsOp); ok && len(s.args) == 1 {
			kk := key{s.args[0], op.hi - op.lo}
			groups[kk] = append(groups[kk], k)
			keyOf[k] = &kk
		}
	}
	order := make([]int, 0, len(m.steps))
	done := make([]bool, len(m.steps))
	for k := range m.steps {
		if done[k] {
			continue
		}
		if keyOf[k] == nil || len(groups[*keyOf[k]]) < 2 {
			order, done[k] = append(order, k), true
			continue
		}
		for _, j := range groups[*keyOf[k]] {
			order, done[j] = append(order, j), true
		}
	}
	steps := make([]step, len(m.steps))
	for i, k := range order {
		steps[i] = m.steps[k]
	}
	m.steps = steps
	for k := 0; k < len(steps); {
		s := steps[k]
		op, ok := s.op.(*rowsOp)
		if !ok {
			k++
			continue
		}
		end := k + 1
		for end < len(steps) && end-k < unstackWidth {
			o, ok := steps[end].op.(*rowsOp)
			if !ok || steps[end].args[0] != s.args[0] || o.hi-o.lo != op.hi-op.lo {
				break
			}
			end++
		}
		if end-k > 1 {
			u.lead[k] = make([]int, 0, end-k)
			for j := k; j < end; j++ {
				u.lead[k] = append(u.lead[k], j)
				u.none[j] = j > k
			}
		}
		k = end
	}
	return u
}

// unstackFn is the device forward of a group's first Rows: it copies every
// Rows of the group (steps) from the operand into their values' buffers.
func (r *devRun) unstackFn(m *Machine, be backend.Backend, steps []int) deviceFn {
	xs := make([]backend.Buf, len(steps))
	offs := make([]int, len(steps))
	var n int
	for j, k := range steps {
		op := m.steps[k].op.(*rowsOp)
		H := r.shapes[m.steps[k].args[0]][1]
		offs[j], n = op.lo*H, (op.hi-op.lo)*H
	}
	outs := make([]int, len(steps))
	for j, k := range steps {
		outs[j] = m.steps[k].out
	}
	u := be.(unstacker)
	return func(_ backend.Buf, args []backend.Buf) error {
		for j, v := range outs {
			xs[j] = r.bufs[v]
		}
		return u.Unstack(xs, args[0], offs, n)
	}
}
