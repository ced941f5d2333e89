package gx

import (
	"slices"

	"github.com/attnzoo/attnzoo/internal/backend"
)

// A decoder position's attention is a chain of small steps, each a launch
// on a device: forward the score (AddTanh and AdditiveOut, or a BMV), its
// MaskedSoftmax and the context's WSum; backward the context's BMV (∂w)
// and Outer (∂H), the SoftmaxGrad, and the score's AdditiveDelta and ∂u
// (or its Outer and WSum). On a backend that runs the chain in one launch
// each way (backend.FusedAttention), the device machine groups each
// chain's steps: the group's first step (its lead) computes every value of
// the group into that value's buffer, and the others launch nothing:
//
//	forward:  T, s, w, ctx   of AddTanh, AdditiveOut, MaskedSoftmax, WSum   4 launches → 1
//	backward: ∂w, ∂s, ∂H, δ, ∂u  of BMV, SoftmaxGrad, Outer, AdditiveDelta, ∂u  5 → 1
//
// (a dot score's BMV, and its Outer and WSum backward, likewise; scores
// computed otherwise, the softmax and the context alone). The lead runs
// before the others' steps, so a group is formed only where every value
// its steps read that is not the group's own is computed before the lead
// (in practice the chain's steps are adjacent), and where a step adds into
// a buffer (exec_device_fuse.go), that buffer's first value is computed
// before the lead too. The plan gives the group's values their buffers at
// the lead's step (attendGroups.early, devRun.plan), so that no buffer
// another value still holds is written early. The values are the unfused
// ops' own up to the order of a sum along a row (kernels/attend.cl).
// ProjLastV (∂v, a sum over the batch rows) stays a launch of its own.

// attendGroups is what fuseAttention decided.
type attendGroups struct {
	none  []bool  // per step: computed by its group's lead
	early [][]int // per step: the values of the group it leads, their buffers given there
	lead  int     // how many groups (forward and backward)
}

// fuseAttention finds the chains and sets their leads' and members'
// device functions. It runs after fuseAdds (it reads which steps add into
// a buffer) and before the plan.
func (r *devRun) fuseAttention(m *Machine, be backend.Backend) *attendGroups {
	a := &attendGroups{none: make([]bool, len(m.steps)), early: make([][]int, len(m.steps))}
	fa, ok := be.(backend.FusedAttention)
	if !ok || !foldAdds || !fuseAttend {
		return a
	}
	stepOf := make([]int, len(m.vals))
	for i := range stepOf {
		stepOf[i] = -1
	}
	readers := make([][]int, len(m.vals))
	for k, s := range m.steps {
		stepOf[s.out] = k
		for _, x := range s.args {
			if !slices.Contains(readers[x], k) {
				readers[x] = append(readers[x], k)
			}
		}
	}
	taken := make([]bool, len(m.steps))
	// usable: a step on the device, not yet grouped, not an Add folded
	// away; plain: one that also writes its own buffer (not adding).
	usable := func(k int) bool { return k >= 0 && r.fns[k] != nil && !r.fuse.none[k] && !taken[k] }
	plain := func(k int) bool { return usable(k) && !r.fuse.acc[k] && r.fuse.alias[m.steps[k].out] == m.steps[k].out }
	// valid: every value the group's steps read is the group's or computed
	// before its lead, and every buffer it adds into is first written
	// before the lead (or, in ok, by the group's kernel before it adds);
	// it returns the lead and the values read from outside.
	valid := func(group []int, ok ...int) (int, []int, bool) {
		lead := slices.Min(group)
		var ext []int
		for _, k := range group {
			for _, x := range m.steps[k].args {
				if p := stepOf[x]; p >= 0 && slices.Contains(group, p) {
					continue
				} else if p >= lead {
					return 0, nil, false
				}
				if !slices.Contains(ext, x) {
					ext = append(ext, x)
				}
			}
			if root := r.fuse.alias[m.steps[k].out]; r.fuse.acc[k] && stepOf[root] >= lead && !slices.Contains(ok, root) {
				return 0, nil, false
			}
		}
		return lead, ext, true
	}
	form := func(group []int, ext []int, run func() error) {
		lead := slices.Min(group)
		slices.Sort(group)
		for _, k := range group {
			taken[k] = true
			a.none[k] = k != lead
			if out := m.steps[k].out; r.fuse.alias[out] == out {
				a.early[lead] = append(a.early[lead], out)
			}
			r.fns[k] = func(backend.Buf, []backend.Buf) error { return nil }
		}
		r.fns[lead] = func(backend.Buf, []backend.Buf) error {
			for _, x := range ext {
				if err := r.toDevice(x); err != nil {
					return err
				}
			}
			return run()
		}
		a.lead++
	}
	buf := func(v int) backend.Buf { return r.bufs[v] }
	for k, s := range m.steps {
		if _, ok := s.op.(*maskedSoftmaxOp); ok && plain(k) && len(r.shapes[s.out]) == 2 {
			r.attendForward(m, k, stepOf, readers, plain, valid, form, buf, fa)
		}
	}
	for k, s := range m.steps {
		if _, ok := s.op.(*softmaxGradOp); ok && plain(k) && len(r.shapes[s.out]) == 2 {
			r.attendBackward(m, k, stepOf, readers, usable, plain, valid, form, buf, fa)
		}
	}
	return a
}

// fuseAttend turns the grouping on (tests compare the machine without it).
var fuseAttend = true

type (
	validFn func(group []int, ok ...int) (int, []int, bool)
	formFn  func(group []int, ext []int, run func() error)
	bufFn   func(v int) backend.Buf
)

// attendForward groups the MaskedSoftmax at step k with the WSum reading
// its weights and, where it can, the score before it.
func (r *devRun) attendForward(m *Machine, k int, stepOf []int, readers [][]int, plain func(int) bool, valid validFn,
	form formFn, buf bufFn, fa backend.FusedAttention) {
	s := m.steps[k]
	sh := r.shapes[s.out]
	B, S := sh[0], sh[1]
	w, score, mask := s.out, s.args[0], s.args[1]
	kw := -1
	for _, j := range readers[w] {
		if op, ok := m.steps[j].op.(*wsumOp); ok && op.h == 1 && m.steps[j].args[0] == w && plain(j) {
			kw = j
			break
		}
	}
	if kw < 0 {
		return
	}
	H, ctx := m.steps[kw].args[1], m.steps[kw].out
	cc := m.steps[kw].op.(*wsumOp).c
	D := r.shapes[H][2]
	base := func() backend.Attend {
		return backend.Attend{B: B, S: S, D: D, Score: buf(score), Mask: buf(mask), W: buf(w), H: buf(H), Ctx: buf(ctx), CC: cc}
	}
	core := []int{k, kw}
	ps := stepOf[score]
	if ps >= 0 && plain(ps) {
		switch op := m.steps[ps].op.(type) {
		case *additiveOutOp:
			so := m.steps[ps]
			T := so.args[0]
			pt := stepOf[T]
			if pt < 0 || !plain(pt) {
				break
			}
			if _, ok := m.steps[pt].op.(*addTanhOp); !ok || !slices.Equal(m.steps[pt].args, so.args[2:5]) {
				break
			}
			P, u, c, v := so.args[2], so.args[3], so.args[4], so.args[1]
			A := r.shapes[P][2]
			group := []int{pt, ps, k, kw}
			if _, ext, ok := valid(group); ok {
				form(group, ext, func() error {
					at := base()
					at.A, at.P, at.U, at.C, at.V, at.T = A, buf(P), buf(u), buf(c), buf(v), buf(T)
					return fa.Attend(at)
				})
				return
			}
		case *bmvOp:
			if op.h != 1 {
				break
			}
			X, q := m.steps[ps].args[0], m.steps[ps].args[1]
			K, sc := r.shapes[X][2], op.c
			group := []int{ps, k, kw}
			if _, ext, ok := valid(group); ok {
				form(group, ext, func() error {
					at := base()
					at.K, at.X, at.Q, at.SC = K, buf(X), buf(q), sc
					return fa.Attend(at)
				})
				return
			}
		}
	}
	if _, ext, ok := valid(core); ok {
		form(core, ext, func() error { return fa.Attend(base()) })
	}
}

// attendBackward groups the SoftmaxGrad at step k with the BMV of its
// ∂w (the context's) and, where it can, the context's Outer (∂H) and the
// steps reading its ∂s: the additive score's AdditiveDelta and ∂u, or the
// dot score's Outer and WSum.
func (r *devRun) attendBackward(m *Machine, k int, stepOf []int, readers [][]int, usable, plain func(int) bool,
	valid validFn, form formFn, buf bufFn, fa backend.FusedAttention) {
	s := m.steps[k]
	sh := r.shapes[s.out]
	B, S := sh[0], sh[1]
	w, dw, ds := s.args[0], s.args[1], s.out
	pb := stepOf[dw]
	if pb < 0 || !plain(pb) {
		return
	}
	bmv, ok := m.steps[pb].op.(*bmvOp)
	if !ok || bmv.h != 1 {
		return
	}
	H, g := m.steps[pb].args[0], m.steps[pb].args[1]
	D := r.shapes[H][2]
	var (
		group              = []int{pb, k}
		dH, delta, du      = -1, -1, -1
		dX, dq             = -1, -1
		T, v, X, q         = -1, -1, -1, -1
		sc                 float64
		haveSC             bool
		dHAcc, dAcc, dXAcc bool
	)
	for _, j := range readers[w] {
		if op, ok := m.steps[j].op.(*outerOp); ok && op.h == 1 && op.c == bmv.c && usable(j) && slices.Equal(m.steps[j].args, []int{w, g}) {
			dH, dHAcc = j, r.fuse.acc[j]
			group = append(group, j)
			break
		}
	}
	for _, j := range readers[ds] {
		sj := m.steps[j]
		switch op := sj.op.(type) {
		case *additiveDeltaOp:
			if delta < 0 && usable(j) && sj.args[2] == ds && (T < 0 || T == sj.args[0] && v == sj.args[1]) {
				delta, dAcc, T, v = j, r.fuse.acc[j], sj.args[0], sj.args[1]
				group = append(group, j)
			}
		case *additiveDeltaSumOp:
			if du < 0 && plain(j) && sj.args[2] == ds && (T < 0 || T == sj.args[0] && v == sj.args[1]) {
				du, T, v = j, sj.args[0], sj.args[1]
				group = append(group, j)
			}
		case *outerOp:
			if dX < 0 && op.h == 1 && usable(j) && sj.args[0] == ds && (!haveSC || sc == op.c) && (q < 0 || q == sj.args[1]) {
				dX, dXAcc, q, sc, haveSC = j, r.fuse.acc[j], sj.args[1], op.c, true
				group = append(group, j)
			}
		case *wsumOp:
			if dq < 0 && op.h == 1 && plain(j) && sj.args[0] == ds && (!haveSC || sc == op.c) && (X < 0 || X == sj.args[1]) {
				dq, X, sc, haveSC = j, sj.args[1], op.c, true
				group = append(group, j)
			}
		}
	}
	if T >= 0 && (dX >= 0 || dq >= 0) { // one score's, not both
		return
	}
	if dX >= 0 && dq >= 0 && r.shapes[q][1] != r.shapes[X][2] {
		return
	}
	out := func(j int) backend.Buf {
		if j < 0 {
			return backend.Buf{}
		}
		return buf(m.steps[j].out)
	}
	run := func(full bool) func() error {
		return func() error {
			ab := backend.AttendBack{B: B, S: S, D: D, H: buf(H), G: buf(g), W: buf(w), CC: bmv.c, DW: buf(dw), DS: buf(ds)}
			if !full {
				return fa.AttendBack(ab)
			}
			ab.DH, ab.DHAcc = out(dH), dHAcc
			if T >= 0 {
				ab.A, ab.T, ab.V, ab.Delta, ab.DeltaAcc, ab.DU = r.shapes[T][2], buf(T), buf(v), out(delta), dAcc, out(du)
			}
			if dX >= 0 || dq >= 0 {
				ab.SC, ab.DX, ab.DXAcc, ab.DQ = sc, out(dX), dXAcc, out(dq)
				if dX >= 0 {
					ab.Q, ab.K = buf(q), r.shapes[q][1]
				}
				if dq >= 0 {
					ab.X, ab.K = buf(X), r.shapes[X][2]
				}
			}
			return fa.AttendBack(ab)
		}
	}
	// the context's ∂H, when the score's ∂X adds into it: the kernel
	// writes ∂H before it adds ∂X, each value by one work-item
	var first []int
	if dH >= 0 && !dHAcc && dX >= 0 && dXAcc && r.fuse.alias[m.steps[dX].out] == m.steps[dH].out && r.shapes[q][1] == D {
		first = append(first, m.steps[dH].out)
	}
	if _, ext, ok := valid(group, first...); ok {
		form(group, ext, run(true))
		return
	}
	if core := []int{pb, k}; len(group) > 2 {
		if _, ext, ok := valid(core); ok {
			form(core, ext, run(false))
		}
	}
}
