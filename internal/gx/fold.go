package gx

import (
	"slices"

	"github.com/attnzoo/attnzoo/internal/backend"
	G "gorgonia.org/gorgonia"
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

// adder is the ability of an op to add its result into a buffer of its
// output's shape: dst += op(args).
type adder interface {
	forwarder
	accumulate(c *call, dst backend.Buf) error
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
// those that sum in place. onDevice[k] reports whether step k runs on the
// backend (not a host op).
func fuseAdds(m *Machine, onDevice []bool, watched []bool) *devFusion {
	n := len(m.vals)
	f := &devFusion{acc: make([]bool, len(m.steps)), none: make([]bool, len(m.steps)), alias: make([]int, n)}
	for i := range f.alias {
		f.alias[i] = i
	}
	if !foldAdds {
		return f
	}
	uses := make([]int, n)
	stepOf := make([]int, n) // value → the step computing it, −1 for an input
	for i := range stepOf {
		stepOf[i] = -1
	}
	for k, s := range m.steps {
		stepOf[s.out] = k
		for _, a := range s.args {
			uses[a]++
		}
	}
	private := func(v int) bool { // read once, not watched, computed on the backend
		k := stepOf[v]
		return k >= 0 && onDevice[k] && uses[v] == 1 && (watched == nil || !watched[v])
	}
	for k, s := range m.steps {
		if !s.add || !onDevice[k] || len(s.args) != 2 || s.args[0] == s.args[1] {
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
	stepOf := make(map[int]int, len(m.steps))
	for k, s := range m.steps {
		stepOf[s.out] = k
	}
	for k := range m.steps {
		s := &m.steps[k]
		op, ok := s.op.(*sumLeadOp)
		if !ok || op.keep != 2 || len(s.args) != 1 {
			continue
		}
		p, ok := stepOf[s.args[0]]
		if !ok {
			continue
		}
		if _, ok := m.steps[p].op.(*additiveDeltaOp); !ok {
			continue
		}
		s.op = &additiveDeltaSumOp{*op}
		s.args = slices.Clone(m.steps[p].args) // T, v, g
		s.argv = make([]G.Value, len(s.args))
	}
}
