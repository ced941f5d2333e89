package gx

import (
	"fmt"
	"slices"

	"github.com/attnzoo/attnzoo/internal/backend"
	"gorgonia.org/tensor"
)

// A weight read at every position of a decoder gets a gradient
// contribution per position, Gₜᵀ·Xₜ, each a product of its own that adds
// into the weight's gradient (the Adds folded by fuseAdds): 13 products a
// weight at the anchor, and as many column sums a bias. The sum of them is
// one product over the positions' rows stacked,
//
//	Σₜ Gₜᵀ Xₜ = [G₁; …; G_T]ᵀ [X₁; …; X_T],    Σₜ colsum(Gₜ) = colsum([G₁; …; G_T])
//
// On a backend that copies blocks into a buffer at an offset (stackerAt:
// the device's stack8, 8 blocks a launch), the device machine runs such a
// chain as one: the steps that write into one gradient's buffer (the
// chain's first, which sets it, and those folded into its Adds, which add
// into it) with the same op on operands of the same shapes form a group,
// and
//
//   - each operand of the members is stacked into a working buffer
//     (gradStack), stackWidth blocks a launch, each block of stackWidth
//     copied as soon as the members have read all of its blocks (so a
//     member's operand lives at most until stackWidth−1 positions later,
//     not to the end of the chain); an operand whose blocks a StackRows
//     of the forward pass already holds in some order (the attentional
//     layer's stacked contexts) is read from there, the members put in
//     its order, and no copy is made. Groups whose operands are the same
//     values share the stack (the GRU's δ is G for each input's weight and
//     for the bias);
//   - the group's last member runs the op once on the stacked operands,
//     into the gradient's buffer: setting it when the chain's first step
//     is a member and every step of the chain is (the first's product
//     with β = 0), adding into it otherwise; the other members launch
//     nothing.
//
// A group of n members with k operands launches 1 + k·⌈n/stackWidth⌉
// kernels instead of n (fewer where stacks are shared or read from a
// StackRows), so only groups for which that alone is fewer are formed:
// n ≥ 4 for a product (two operands), n ≥ 3 for a column sum. The sums
// are the same terms added in another order (float32 rounding of the
// device only; the host machine is unchanged). The working buffers and
// the operands kept longer are in the memory plan (devRun.plan), as
// values of their own. EmbedGrad chains are left as they are: the
// device's kernel scans the earlier ids for each row's first, a cost that
// grows with the square of the rows stacked.

// stackerAt is a backend with StackAt: dst[off + t·n + i] = xs[t][i].
type stackerAt interface {
	StackAt(dst backend.Buf, off int, xs []backend.Buf, n int) error
}

// stackGrads turns the stacking on (tests compare the machine without it).
var stackGrads = true

// gradGroup is a group of steps computed as one (see above).
type gradGroup struct {
	steps []int         // the members, in the order their operands are stacked
	op    adder         // the members' op
	ops   []gradOperand // per operand of the op
	sh    []tensor.Shape
	root  int  // the value whose buffer the group writes
	set   bool // the group sets it (β = 0) rather than adding into it
	at    int  // the step that runs it: its last member
	c     *call
}

// gradOperand is where a group reads one operand stacked: a gradStack, or
// a StackRows value of the graph.
type gradOperand struct {
	stack int // index in stacked.stacks, or −1
	value int // the StackRows value when stack is −1
}

// gradStack is a working buffer holding values one after another.
type gradStack struct {
	vals     []int // the values, in order
	n        int   // numbers each
	builds   []int // per block of stackWidth values: the step that copies it
	from, to int   // steps: its first copy, its last reader
	srcs     []backend.Buf
}

// stacked is what stackGradGroups decided.
type stacked struct {
	groups []*gradGroup
	stacks []*gradStack
	member []bool // per step: in a group
	bufs   []backend.Buf
}

// stackKey is what the members of a group share: the op (its name and
// parameters) and its operands' shapes.
func stackKey(s *step, shapes []tensor.Shape) string {
	switch s.op.(type) {
	case *linearWOp, *sumRowsOp, *sumColsOp:
	default:
		return ""
	}
	k := fmt.Sprint(s.op)
	for _, a := range s.args {
		k += fmt.Sprint(shapes[a])
	}
	return k
}

// stackGradGroups finds the groups of r's steps that run as one, and
// replaces the members' device forwards with the group's launches.
// onDevice[k] reports whether step k runs on the device.
func (r *devRun) stackGradGroups(m *Machine, be backend.Backend, onDevice []bool) {
	st := &stacked{member: make([]bool, len(m.steps))}
	r.stk = st
	sa, ok := be.(stackerAt)
	if !ok || !foldAdds || !stackGrads {
		return
	}
	f := r.fuse
	stepOf := map[int]int{}
	for k, s := range m.steps {
		stepOf[s.out] = k
	}
	// the steps writing into each chain's buffer, in order
	writers := map[int][]int{}
	var roots []int
	for k, s := range m.steps {
		if !f.acc[k] {
			continue
		}
		root := f.alias[s.out]
		if writers[root] == nil {
			roots = append(roots, root)
			if rk, ok := stepOf[root]; ok && onDevice[rk] && !f.none[rk] && !f.acc[rk] {
				writers[root] = []int{rk}
			}
		}
		writers[root] = append(writers[root], k)
	}
	var groups []*gradGroup
	for _, root := range roots {
		ws := writers[root]
		byKey := map[string][]int{}
		var keys []string
		for _, k := range ws {
			key := stackKey(&m.steps[k], r.shapes)
			if key == "" || r.unstack.none[k] || r.unstack.lead[k] != nil {
				continue
			}
			if byKey[key] == nil {
				keys = append(keys, key)
			}
			byKey[key] = append(byKey[key], k)
		}
		first := ws[0]
		for _, key := range keys {
			mem := byKey[key]
			set := mem[0] == first && !f.acc[first]
			if set && len(mem) < len(ws) { // others add into the buffer it sets: it runs alone
				mem, set = mem[1:], false
			}
			if len(mem) == 0 {
				continue
			}
			nops := len(m.steps[mem[0]].args)
			if len(mem) <= 1+nops*((len(mem)+stackWidth-1)/stackWidth) {
				continue
			}
			groups = append(groups, &gradGroup{steps: mem, op: m.steps[mem[0]].op.(adder), root: root, set: set, at: mem[len(mem)-1]})
		}
	}
	if len(groups) == 0 {
		return
	}
	// the StackRows of the graph, by their operands
	var rowStacks []int // steps
	for k, s := range m.steps {
		if _, ok := s.op.(*stackRowsOp); ok && onDevice[k] && !f.none[k] && !f.acc[k] && f.alias[s.out] == s.out && distinct(s.args) {
			rowStacks = append(rowStacks, k)
		}
	}
	accInto := map[int]bool{} // values whose buffer a later step adds into
	for k := range m.steps {
		if f.acc[k] {
			accInto[f.alias[m.steps[k].out]] = true
		}
	}
	operandVals := func(g *gradGroup, j int) []int {
		vs := make([]int, len(g.steps))
		for i, k := range g.steps {
			vs[i] = m.steps[k].args[j]
		}
		return vs
	}
	// groups that read an operand from a StackRows come first: their order
	// is fixed by it, and the other groups take the orders of the stacks
	// they make
	type reuse struct{ operand, step int }
	reuses := map[*gradGroup]reuse{}
	for _, g := range groups {
		reuses[g] = reuse{-1, -1}
	match:
		for j := range m.steps[g.steps[0]].args {
			vs := operandVals(g, j)
			for _, k := range rowStacks {
				s := m.steps[k]
				if k < g.steps[0] && !accInto[s.out] && sameSet(vs, s.args) {
					reuses[g] = reuse{j, k}
					break match
				}
			}
		}
	}
	slices.SortStableFunc(groups, func(a, b *gradGroup) int {
		switch ra, rb := reuses[a].operand >= 0, reuses[b].operand >= 0; {
		case ra && !rb:
			return -1
		case !ra && rb:
			return 1
		}
		return a.at - b.at
	})
	bySeq := map[string]int{} // an ordered list of values → its stack
	for _, g := range groups {
		nops := len(m.steps[g.steps[0]].args)
		g.ops = make([]gradOperand, nops)
		order := func(want []int, j int) { // put the members in want's order of operand j
			pos := map[int]int{}
			for i, v := range want {
				pos[v] = i
			}
			slices.SortStableFunc(g.steps, func(a, b int) int { return pos[m.steps[a].args[j]] - pos[m.steps[b].args[j]] })
		}
		reused := -1
		if j, k := reuses[g].operand, reuses[g].step; j >= 0 {
			order(m.steps[k].args, j)
			reused, g.ops[j] = j, gradOperand{stack: -1, value: m.steps[k].out}
		} else {
		find:
			for j := range nops {
				vs := operandVals(g, j)
				if !distinct(vs) {
					continue
				}
				for _, s := range st.stacks {
					if sameSet(vs, s.vals) {
						order(s.vals, j)
						break find
					}
				}
			}
		}
		for j := range nops {
			if j == reused {
				continue
			}
			vs := operandVals(g, j)
			key := fmt.Sprint(vs)
			i, ok := bySeq[key]
			if !ok {
				i = len(st.stacks)
				bySeq[key] = i
				st.stacks = append(st.stacks, &gradStack{vals: vs, n: size(r.shapes[vs[0]]), from: len(m.steps), to: -1})
			}
			g.ops[j] = gradOperand{stack: i, value: -1}
		}
		g.sh = make([]tensor.Shape, nops)
		for j, a := range m.steps[g.steps[0]].args {
			s := r.shapes[a]
			if len(s) == 1 {
				g.sh[j] = tensor.Shape{len(g.steps) * s[0]}
			} else {
				g.sh[j] = tensor.Shape{len(g.steps) * lead(s), last(s)}
			}
		}
		for _, k := range g.steps {
			st.member[k] = true
		}
		st.groups = append(st.groups, g)
	}
	// each block of a stack is copied at the step by which its groups'
	// members have read all of its values
	for i, s := range st.stacks {
		firstRead := make([]int, len(s.vals))
		for p := range firstRead {
			firstRead[p] = len(m.steps)
		}
		for _, g := range st.groups {
			for j := range g.ops {
				if g.ops[j].stack != i {
					continue
				}
				for p, k := range g.steps {
					firstRead[p] = min(firstRead[p], k)
				}
				s.to = max(s.to, g.at)
			}
		}
		for b := 0; b < len(s.vals); b += stackWidth {
			s.builds = append(s.builds, slices.Max(firstRead[b:min(len(s.vals), b+stackWidth)]))
		}
		s.from = slices.Min(s.builds)
		s.srcs = make([]backend.Buf, stackWidth)
	}
	st.bufs = make([]backend.Buf, len(st.stacks))
	// the members' forwards: the copies due at their step, then the group
	// they end
	type copyAt struct{ stack, block int }
	copies := make([][]copyAt, len(m.steps))
	for i, s := range st.stacks {
		for b, k := range s.builds {
			copies[k] = append(copies[k], copyAt{i, b})
		}
	}
	ends := make([][]*gradGroup, len(m.steps))
	for _, g := range st.groups {
		ends[g.at] = append(ends[g.at], g)
		g.c = &call{be: be, in: make([]backend.Buf, len(g.ops)), sh: g.sh, osh: r.shapes[g.root], dev: r}
	}
	for k, in := range st.member {
		if !in {
			continue
		}
		cs, gs := copies[k], ends[k]
		r.fns[k] = func(backend.Buf, []backend.Buf) error {
			for _, c := range cs {
				s := st.stacks[c.stack]
				lo := c.block * stackWidth
				vs := s.vals[lo:min(len(s.vals), lo+stackWidth)]
				for t, v := range vs {
					s.srcs[t] = r.bufs[v]
				}
				if err := sa.StackAt(st.bufs[c.stack], lo*s.n, s.srcs[:len(vs)], s.n); err != nil {
					return err
				}
			}
			for _, g := range gs {
				g.c.out, g.c.ti = r.bufs[g.root], 0
				for j, o := range g.ops {
					if o.stack >= 0 {
						g.c.in[j] = st.bufs[o.stack]
					} else {
						g.c.in[j] = r.bufs[o.value]
					}
				}
				var err error
				if g.set {
					err = g.op.forward(g.c)
				} else {
					err = g.op.accumulate(g.c, g.c.out)
				}
				if err != nil {
					return fmt.Errorf("gx: %d positions' %v stacked: %w", len(g.steps), g.op, err)
				}
			}
			return nil
		}
	}
}

// stackWidth is how many blocks one launch of StackAt copies (the
// device's stack8).
const stackWidth = unstackWidth

// extendLives makes the plan keep each value a stack copies until its
// copy, and each StackRows value a group reads until the group runs.
func (st *stacked) extendLives(last []int) {
	if st == nil {
		return
	}
	for _, s := range st.stacks {
		for b, k := range s.builds {
			for _, v := range s.vals[b*stackWidth : min(len(s.vals), (b+1)*stackWidth)] {
				last[v] = max(last[v], k)
			}
		}
	}
	for _, g := range st.groups {
		for _, o := range g.ops {
			if o.stack < 0 {
				last[o.value] = max(last[o.value], g.at)
			}
		}
	}
}

// distinct reports whether vs has no value twice.
func distinct(vs []int) bool {
	seen := make(map[int]bool, len(vs))
	for _, v := range vs {
		if seen[v] {
			return false
		}
		seen[v] = true
	}
	return true
}

// sameSet reports whether a and b, each of distinct values, hold the same
// values.
func sameSet(a, b []int) bool {
	if len(a) != len(b) || !distinct(a) {
		return false
	}
	in := make(map[int]bool, len(b))
	for _, v := range b {
		in[v] = true
	}
	for _, v := range a {
		if !in[v] {
			return false
		}
	}
	return true
}
