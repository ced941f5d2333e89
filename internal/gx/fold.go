package gx

import (
	"slices"

	"github.com/attnzoo/attnzoo/internal/backend"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// An Add is a pass over memory of its own (on a device, a kernel launch),
// and gorgonia's backward pass sums every gradient that has several
// contributions with a chain of them: at the anchor 173 of a training
// step's ~800 launches. The machine, on every backend, folds an Add into
// the op that computes one of its operands where that op can add its
// result into a buffer (adder): the op, when it runs, adds into the other
// operand's buffer, which becomes the Add's value, and the Add runs
// nothing.
//
//	s = a + o,  o = op(x…)   →   buf(a) += op(x…) at o's step;  s is buf(a)
//
// This holds when a and o are read by this Add alone and neither is
// watched (nothing else sees a's buffer change or misses o's own), both
// are computed by steps of this machine on its backend (not inputs), and
// the buffer is a's before op runs. a may itself be such an Add's value: a
// chain of gradient contributions sums into the buffer of its first, in
// whatever order the ops run (each adds into it, and nothing reads the sum
// before the chain's last Add, which runs after them all). The sum is the
// Add's up to rounding: a product's β = 1 adds its sum of products to a,
// where the Add added the product rounded on its own, and the terms may
// be added in another order.
//
// An Add that is not folded but has such an operand a sums into a's
// buffer (in place: the same bits as into a buffer of its own), so a chain
// of Adds holds one buffer.

// adder is an op that can add its result into a buffer of its output's
// shape: into(c, dst, true) is dst += op(args), into(c, c.out, false) its
// forward.
type adder interface {
	G.Op
	into(c *call, dst backend.Buf, acc bool) error
}

// devFusion is what fuseAdds decided: per step, whether it adds into its
// aliased buffer, and per value, the value whose buffer it shares (itself
// when none).
type devFusion struct {
	acc   []bool // per step: its op adds into bufs[out], which is its group's buffer
	none  []bool // per step: an Add folded into an operand's op: nothing to run
	alias []int  // per value: the group's first value, whose buffer the group shares
}

// foldAdds turns the folding on (tests compare the machine without it).
var foldAdds = true

// fuseAdds finds the Adds the machine folds into an operand's op, and
// those that sum in place; a step with a function (r.fns) runs on the
// backend, the others are host ops.
func (r *devRun) fuseAdds(m *Machine) *devFusion {
	n := len(m.stepOf)
	f := &devFusion{acc: make([]bool, len(m.steps)), none: make([]bool, len(m.steps)), alias: make([]int, n)}
	for i := range f.alias {
		f.alias[i] = i
	}
	if !foldAdds {
		return f
	}
	uses, stepOf := make([]int, n), m.stepOf
	for _, s := range m.steps {
		for _, a := range s.args {
			uses[a]++
		}
	}
	private := func(v int) bool { // read once, not watched, computed on the backend
		k := stepOf[v]
		return k >= 0 && r.fns[k] != nil && uses[v] == 1 && !m.watched[v]
	}
	for k, s := range m.steps {
		if !s.add || r.fns[k] == nil || s.args[0] == s.args[1] {
			continue
		}
		for j := range 2 { // the first operand folds, into the second's buffer
			o, a := s.args[j], s.args[1-j]
			p := stepOf[o]
			if !private(a) || !private(o) || f.acc[p] || f.none[p] {
				continue
			}
			root := f.alias[a]
			if _, ok := m.steps[p].op.(adder); !ok || stepOf[root] >= p {
				continue
			}
			f.acc[p], f.none[k] = true, true
			f.alias[o], f.alias[s.out] = root, root
			break
		}
		for _, a := range s.args { // not folded: in place
			if !f.none[k] && private(a) {
				f.alias[s.out] = f.alias[a]
				break
			}
		}
	}
	return f
}

// sumDeltasFromOperands: the additive score's δ at each position is read
// twice, by its SumMid (∂u) and by the Add that sums the positions' δ
// into the projected keys' gradient, so that Add could not be folded (δ
// not private): a launch per position. On a backend that sums δ from its
// operands in one kernel (deltaSummer), each SumMid of an AdditiveDelta
// reads δ's operands (T, v, g) instead, as an additiveDeltaSumOp; δ is
// then read by its Add alone and fuseAdds folds the chain. It changes the
// machine's steps, before anything is built from them.
func sumDeltasFromOperands(m *Machine, be backend.Backend) {
	if _, ok := be.(deltaSummer); !ok || !foldAdds {
		return
	}
	for k := range m.steps {
		s := &m.steps[k]
		op, ok := s.op.(*sumMidOp)
		if !ok || len(s.args) != 1 || m.stepOf[s.args[0]] < 0 {
			continue
		}
		p := m.stepOf[s.args[0]]
		if _, ok := m.steps[p].op.(*additiveDeltaOp); !ok {
			continue
		}
		s.op = &additiveDeltaSumOp{*op}
		s.args = slices.Clone(m.steps[p].args) // T, v, g
		s.argv = make([]G.Value, len(s.args))
	}
}

// The fused attention's backward makes, at each decoder position, terms
// of sums over the positions that the separate steps after it would add
// in, a launch each: the values' ∂H (AttentionDH), the key-side gradient
// (an Unflat of its flat tensor), and the additive bias's ∂c (a SumRows of
// ∂u). An op that can do such a step's work in its own backend call
// (absorber: AttentionBack adds ∂H and the key-side gradient, AttentionDV
// adds ∂c beside ∂v) does it there, and the step runs nothing. The terms
// are added as the steps would add them, so the sums are the same bits,
// provided the step adds into a sum (fuseAdds folded it) whose first value
// is computed before the op, and no other step writes that sum between
// the op's step and the absorbed one (the terms then reach it in the same
// order); every backend's machine does the same.

// absorber is an op that can do, in its own call, the work of a later step
// that adds into a sum.
type absorber interface {
	// absorbs reports whether the op of step p can do step k's work, and
	// in which of its slots, for the values' shapes.
	absorbs(m *Machine, shapes []tensor.Shape, p, k int) (slot int, ok bool)
	// absorbing is the op's forward (with acc, added into dst), adding the
	// absorbed steps' terms into dsts[slot] where set, the slots in the
	// order order lists them (the order their steps ran).
	absorbing(c *call, dst backend.Buf, acc bool, dsts []backend.Buf, order []int) error
}

// absorb turns the absorbing on (tests compare the machine without it).
var absorb = true

// absorbed is a step whose work another does: its slot there and the
// value whose buffer its term is added into.
type absorbed struct{ slot, root int }

// absorbSteps finds the steps that absorbers do the work of (r.fuse.none
// set for them), per absorbing step, in the order they ran.
func (r *devRun) absorbSteps(m *Machine) map[int][]absorbed {
	f, stepOf, out := r.fuse, m.stepOf, map[int][]absorbed{}
	for p, s := range m.steps {
		op, ok := s.op.(absorber)
		if !ok || r.fns[p] == nil || f.none[p] || !foldAdds || !absorb {
			continue
		}
		written := map[int]bool{} // the sums written by the steps since p
		var got []absorbed
		for k := p + 1; k < len(m.steps); k++ {
			if f.none[k] {
				continue
			}
			root := f.alias[m.steps[k].out]
			if slot, ok := op.absorbs(m, r.shapes, p, k); ok && f.acc[k] && stepOf[root] >= 0 && stepOf[root] < p && !written[root] &&
				!slices.ContainsFunc(got, func(a absorbed) bool { return a.slot == slot }) {
				got = append(got, absorbed{slot, root})
				f.none[k] = true
				continue
			}
			written[root] = true
		}
		if got != nil {
			out[p] = got
		}
	}
	return out
}

// absorbing is the function of step s, whose op does the work of the
// steps ab too (fold.go's absorbSteps): the sums they add into are read
// as operands after its own, their buffers its dsts.
func (r *devRun) absorbing(s *step, ab []absorbed, acc bool) deviceFn {
	n0, in, slots, order := len(s.args), r.argShapes(s), 0, make([]int, len(ab))
	for i, a := range ab {
		s.args = append(s.args, a.root)
		slots, order[i] = max(slots, a.slot+1), a.slot
	}
	dsts := make([]backend.Buf, slots)
	op := s.op.(absorber)
	f := r.onBuffers(in, r.shapes[s.out], func(c *call) error { return op.absorbing(c, c.out, acc, dsts, order) })
	return func(out backend.Buf, args []backend.Buf) error {
		clear(dsts)
		for i, a := range ab {
			dsts[a.slot] = args[n0+i]
		}
		return f(out, args[:n0])
	}
}
