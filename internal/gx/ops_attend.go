package gx

import (
	"fmt"
	"slices"

	"github.com/attnzoo/attnzoo/internal/backend"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Attention is one decoder position's attention as one op, on a backend
// that runs it so (backend.FusedAttention; Graph.FusesAttention): the
// score, its masked softmax over the keys and the context, the way
// GRUSequence is one op for a recurrence. The score is additive, dot
// (scaled by a constant) or computed before (Scoring). The op's output
// packs every value it computes (backend.AttendLayout: tanh(P + u + c),
// the scores, the weights, the context, each at an offset the target can
// view: viewAlign); the scores, the weights and the context are views of
// it where the machine can place them so (views.go), else copied out of it
// by attendPartOps, which differentiate with
// respect to the op's operands directly (the packed tensor gets no
// gradient, so nothing is counted twice):
//
//   - the context's gradient is one op back (attendBackOp: ∂w, the
//     softmax's ∂s, the score's key- and query-side gradients, into one
//     flat tensor, backend.AttendBackLayout) that unflatOps cut up; the
//     bias's ∂c = Σ_b ∂u (SumRows) and ∂v = Tᵀ∂s (attendDVOp) are sums
//     over the batch, ops of their own, and so is the values' ∂H, the
//     Outer of the weights and ∂ctx (attendDHOp). Where these add into
//     their sums over the positions (fold.go), the backward op adds ∂H
//     and the key-side cut itself, and attendDVOp ∂c (absorbs), the sums
//     the same bits;
//   - the weights' and the scores' (a penalty on the weights, say) are the
//     unfused ops' gradients: SoftmaxGrad, then the score's.
//
// The values are the unfused chain's (Additive or BMV, MaskedSoftmax,
// WSum): on the cpu the same bits, on a device up to the order of a row's
// sum (backend.FusedAttention). A graph built for a backend without the
// ability gets the unfused chain (scorers.Memory.Attend).
type attendOp struct {
	base
	attendCore
}

// attendCore is what the attention ops share: the score's kind, its scale
// (dot) and the context's, and its tensors' alignment.
type attendCore struct {
	kind   attendKind
	sc, cc float64
	h      int // the dot score's heads (1: one)
	align  int // backend.Attend's Align: the target's viewAlign
}

type attendKind int

const (
	attendScored   attendKind = iota // the scores are an operand
	attendAdditive                   // P, u, c, v
	attendDot                        // X, q
)

// attendPart is what an attendPartOp copies out of the packed tensor.
type attendPart int

const (
	partScores attendPart = iota
	partWeights
	partContext
	partTanh        // the additive score's tanh(P + u + c), read by the score's gradient
	partHeadWeights // each head's weights, with several
)

// attendPartOp: (packed, operands…) → one part.
type attendPartOp struct {
	base
	attendCore
	part attendPart
}

// attendBackOp: (packed, ∂ctx, operands…) → the flat gradients.
type attendBackOp struct {
	base
	attendCore
}

// attendDVOp: (packed, flat gradients) → ∂v = Tᵀ∂s [A] (additive), for
// n = B·S positions, T at t in the packed tensor; ∂u [b,A] lies at q in
// the flat gradients (for ∂c, which the op may add into its sum: absorbs).
type attendDVOp struct {
	base
	n, a, t int
	b, q    int
}

// Scoring is an attention score given by its operands, for Attention and
// Score: one of
//
//	additive: s[b,i] = Σ_a V[a] · tanh(P[b,i,a] + U[b,a] + C[a])   P [B,S,A], U [B,A], C, V [A]
//	dot:      s[b,i] = Scale · Σ_k X[b,i,k] · Q[b,k]              X [B,S,K], Q [B,K]
//	computed: Scores [B,S]
//
// and the dot score with Heads h > 1, s [B·h,S] (BMVHeads).
type Scoring struct {
	P, U, C, V *Node
	X, Q       *Node
	Scale      float64
	Heads      int
	Scores     *Node
}

// AdditiveScoring is the additive score of P, u, c and v (Graph.Additive).
func AdditiveScoring(P, u, c, v *Node) Scoring { return Scoring{P: P, U: u, C: c, V: v} }

// DotScoring is the dot score c·X q (Graph.BMV).
func DotScoring(X, q *Node, c float64) Scoring { return Scoring{X: X, Q: q, Scale: c, Heads: 1} }

// DotScoringHeads is the dot score of h heads, c·X q per head
// (Graph.BMVHeads): [B·h,S].
func DotScoringHeads(X, q *Node, h int, c float64) Scoring {
	return Scoring{X: X, Q: q, Scale: c, Heads: h}
}

// heads is the number of heads: 1 unless a dot score's.
func (sc Scoring) heads() int {
	if sc.kind() == attendDot {
		return max(1, sc.Heads)
	}
	return 1
}

// ScoresOf is scores computed already.
func ScoresOf(s *Node) Scoring { return Scoring{Scores: s} }

func (sc Scoring) kind() attendKind {
	switch {
	case sc.P != nil:
		return attendAdditive
	case sc.X != nil:
		return attendDot
	}
	return attendScored
}

// operands are the score's nodes, in the op's order.
func (sc Scoring) operands() []*Node {
	switch sc.kind() {
	case attendAdditive:
		return []*Node{sc.P, sc.U, sc.C, sc.V}
	case attendDot:
		return []*Node{sc.X, sc.Q}
	}
	return []*Node{sc.Scores}
}

// Score returns the score as the unfused ops compute it: Additive, BMV, or
// the scores given.
func (g *Graph) Score(sc Scoring) *Node {
	switch sc.kind() {
	case attendAdditive:
		return g.Additive(sc.P, sc.U, sc.C, sc.V)
	case attendDot:
		return g.BMVHeads(sc.X, sc.Q, sc.heads(), sc.Scale)
	}
	return sc.Scores
}

// SetTarget tells the graph the backend its machines will run on, before
// anything is built: a builder emits a fused op (Attention) only where
// that backend has it. Unset, the target is the arena's backend (the cpu,
// or the one given by SetBackend before building). This is the one place
// a graph builder learns its backend.
func (g *Graph) SetTarget(be backend.Backend) { g.target = be }

// Target is the backend the graph is built for (SetTarget).
func (g *Graph) Target() backend.Backend {
	if g.target != nil {
		return g.target
	}
	return g.run.backend()
}

// FusesAttention reports whether the graph's target runs Attention with
// h heads: it has the kernels (backend.FusedAttention) and declares them
// (backend.Fuser: FuseAttention; with several heads FuseAttentionHeads).
func (g *Graph) FusesAttention(h int) bool {
	be := g.Target()
	if _, ok := be.(backend.FusedAttention); !ok {
		return false
	}
	if h > 1 {
		return g.fuses(backend.FuseAttentionHeads)
	}
	return g.fuses(backend.FuseAttention)
}

// Attended is Attention's values: the scores [B·h,S] (sc's own where they
// are computed already), each head's weights [B·h,S] with h > 1 heads
// (nil with one), the weights [B,S] (with several heads their mean) and
// the context [B,D].
type Attended struct{ Scores, HeadWeights, Weights, Context *Node }

// Attention returns the scores, the weights, their masked softmax over
// mask [B,S] (1 = present; each head's with several, then their mean),
// and the context Σ_i w_i·H_i [B,D] of values H [B,S,D], as one op (see
// attendOp). Build it only for a target that FusesAttention.
func (g *Graph) Attention(sc Scoring, mask, values *Node) Attended {
	// the values first: a node both the keys and the values (the dot
	// score's annotations) then gets ∂H before ∂X, as from the unfused
	// chain (WSum's gradient is taken before BMV's), and their sum's bits
	// are the same
	ins := append([]*Node{values, mask}, sc.operands()...)
	if !g.ok(ins...) {
		return Attended{}
	}
	core := attendCore{kind: sc.kind(), sc: sc.Scale, cc: 1, h: sc.heads(), align: viewAlign(g.Target())}
	in := dimsOf(ins)
	packed := g.apply(&attendOp{base{name: "Attention", args: core.hashArgs(), in: in, out: 1}, core}, ins...)
	if packed == nil {
		return Attended{}
	}
	part := func(p attendPart) *Node {
		return g.apply(core.part(p, in), append([]*Node{packed}, ins...)...)
	}
	at := Attended{Scores: sc.Scores}
	if at.Scores == nil {
		at.Scores = part(partScores)
	}
	if core.h > 1 {
		at.HeadWeights = part(partHeadWeights)
	}
	at.Weights, at.Context = part(partWeights), part(partContext)
	return at
}

func (k attendCore) hashArgs() string {
	return fmt.Sprint(k.kind, ",", k.sc, ",", k.cc, ",", k.h, ",", k.align)
}

func (k attendCore) part(p attendPart, in []int) *attendPartOp {
	names := [...]string{"AttentionScores", "AttentionWeights", "AttentionContext", "AttentionTanh", "AttentionHeadWeights"}
	dims := [...]int{2, 2, 2, 3, 2}[p]
	return &attendPartOp{base{name: names[p], args: k.hashArgs(), in: append([]int{1}, in...), out: dims}, k, p}
}

// sizes is the chain's sizes from its operands' shapes (the values, the
// mask, the score's), checked.
func (k attendCore) sizes(s []tensor.Shape) (backend.Attend, error) {
	var a backend.Attend
	fail := func() (backend.Attend, error) {
		want := "values [B,S,D], mask [B,S], " + [...]string{"s [B,S]", "P [B,S,A], u [B,A], c [A], v [A]", "X [B,S,K], q [B,K]"}[k.kind]
		return a, shapeErr("Attention", want, s)
	}
	if len(s) != 2+[...]int{1, 4, 2}[k.kind] { // the score's operands
		return fail()
	}
	H, m, sc := s[0], s[1], s[2:]
	if len(m) != 2 || len(H) != 3 || H[0] != m[0] || H[1] != m[1] {
		return fail()
	}
	a.B, a.S, a.D, a.CC, a.SC, a.Align = m[0], m[1], H[2], k.cc, k.sc, k.align
	ok := false
	switch k.kind {
	case attendAdditive:
		P, u, c, v := sc[0], sc[1], sc[2], sc[3]
		ok = len(P) == 3 && P[0] == a.B && P[1] == a.S && len(u) == 2 && u[0] == a.B && u[1] == P[2] && c.TotalSize() == P[2] && v.TotalSize() == P[2]
		a.A = P[2]
	case attendDot:
		X, q := sc[0], sc[1]
		ok = len(X) == 3 && X[0] == a.B && X[1] == a.S && len(q) == 2 && q[0] == a.B && q[1] == X[2] && k.h >= 1 && X[2]%k.h == 0
		a.K, a.Heads = X[2], k.h
	default:
		ok = sc[0].Eq(m)
	}
	if !ok {
		return fail()
	}
	return a, nil
}

// attend is the call's backend as a FusedAttention and the chain's
// backend.Attend on the call's operands from i on: the values, the mask
// and the score's.
func (k attendCore) attend(c *call, name string, i int) (backend.FusedAttention, backend.Attend, error) {
	fa, err := fused(c, name)
	if err != nil {
		return nil, backend.Attend{}, err
	}
	a, err := k.sizes(c.sh[i:])
	if err != nil {
		return nil, a, err
	}
	in := c.in[i:]
	a.H, a.Mask, in = in[0], in[1], in[2:]
	switch k.kind {
	case attendAdditive:
		a.P, a.U, a.C, a.V = in[0], in[1], in[2], in[3]
	case attendDot:
		a.X, a.Q = in[0], in[1]
	default:
		a.Score = in[0]
	}
	return fa, a, nil
}

// fused is the call's backend as a FusedAttention.
func fused(c *call, name string) (backend.FusedAttention, error) {
	fa, ok := c.be.(backend.FusedAttention)
	if !ok {
		return nil, fmt.Errorf("gx: %s on %s, which has no fused attention (backend.FusedAttention): build the graph for it (Graph.SetTarget)", name, c.be.Name())
	}
	return fa, nil
}

func (op *attendOp) outShape(s []tensor.Shape) (tensor.Shape, error) {
	a, err := op.sizes(s)
	if err != nil {
		return nil, err
	}
	return tensor.Shape{a.Layout().N}, nil
}

// forward: the chain into the packed tensor (backend.Attend).
func (op *attendOp) forward(c *call) error {
	fa, a, err := op.attend(c, op.name, 0)
	if err != nil {
		return err
	}
	a.Out = c.out
	return fa.Attend(a)
}

func (op *attendPartOp) outShape(s []tensor.Shape) (tensor.Shape, error) {
	_, sh, err := op.at(s)
	return sh, err
}

// at is where the part lies in the packed tensor, and its shape, from the
// op's operands' shapes (the packed tensor's first).
func (op *attendPartOp) at(s []tensor.Shape) (int, tensor.Shape, error) {
	a, err := op.sizes(s[1:])
	if err != nil {
		return 0, nil, err
	}
	l, nh := a.Layout(), a.B*a.NHeads()
	switch op.part {
	case partScores:
		return l.S, tensor.Shape{nh, a.S}, nil
	case partHeadWeights:
		return l.HW, tensor.Shape{nh, a.S}, nil
	case partWeights:
		return l.W, tensor.Shape{a.B, a.S}, nil
	case partContext:
		return l.Ctx, tensor.Shape{a.B, a.D}, nil
	}
	return l.T, tensor.Shape{a.B, a.S, a.A}, nil
}

// copyOut: a part nobody reads is not copied (exec.go's dropUnread): in
// training, the scores, and the weights where no penalty reads them.
func (op *attendPartOp) copyOut() {}

// viewOff: the part's offset in the packed tensor (views.go).
func (op *attendPartOp) viewOff(in []tensor.Shape) int {
	off, _, err := op.at(in)
	if err != nil {
		return -1
	}
	return off
}

// forward: the part copied out of the packed tensor.
func (op *attendPartOp) forward(c *call) error {
	off, sh, err := op.at(c.sh)
	if err != nil {
		return err
	}
	n := sh.TotalSize()
	return c.be.Copy2D(c.out, 0, n, c.in[0], off, n, 1, n)
}

// DiffWRT: the score's operands (and for the context the values); never
// the packed tensor nor the mask, nor anything for the tanh.
func (op *attendPartOp) DiffWRT(n int) []bool {
	d := slices.Repeat([]bool{op.part != partTanh}, n)      // the score's operands
	d[0], d[1], d[2] = false, op.part == partContext, false // packed, the values, the mask
	return d
}

func (op *attendPartOp) SymDiff(all G.Nodes, out, grad *G.Node) (G.Nodes, error) {
	res := make(G.Nodes, len(all))
	var err error
	switch op.part {
	case partContext:
		err = op.contextGrads(all, grad, res)
	case partWeights, partHeadWeights:
		hw, g := out, grad
		if op.part == partWeights && op.h > 1 { // the heads' mean's gradient (HeadMean's)
			hw = op.grad(&err, op.part0(partHeadWeights, all), all...)
			g = op.grad(&err, newGroupRows(op.h, 1/float64(op.h), true), grad)
		}
		ds := op.grad(&err, &softmaxGradOp{base{name: "SoftmaxGrad", in: []int{2, 2}, out: 2}}, hw, g)
		if err == nil {
			err = op.scoreGrads(all, ds, res)
		}
	case partScores:
		err = op.scoreGrads(all, grad, res)
	default:
		err = fmt.Errorf("gx: %s is not differentiated", op.name)
	}
	return res, err
}

// scoreGrads sets res's score operands to their gradients from the scores'
// ∂s, as the unfused score's ops do (Additive's, BMV's).
func (op *attendPartOp) scoreGrads(all G.Nodes, ds *Node, res G.Nodes) error {
	ins := all[3:] // the score's operands
	switch op.kind {
	case attendAdditive:
		T, err := op.applyOp(op.part0(partTanh, all), all...)
		if err != nil {
			return err
		}
		o := &additiveOutOp{base{name: "AdditiveOut", in: []int{3, 1, 3, 2, 1}, out: 2, salt: op.salt, run: op.run}}
		g, err := o.SymDiff(G.Nodes{T, ins[3], ins[0], ins[1], ins[2]}, nil, ds)
		if err != nil {
			return err
		}
		res[3], res[4], res[5], res[6] = g[2], g[3], g[4], g[1] // P, u, c, v
	case attendDot:
		o := &bmvOp{base{name: "BMV", in: []int{3, 2}, out: 2, salt: op.salt, run: op.run}, op.sc, op.h}
		g, err := o.SymDiff(G.Nodes{ins[0], ins[1]}, nil, ds)
		if err != nil {
			return err
		}
		res[3], res[4] = g[0], g[1]
	default:
		res[3] = ds
	}
	return nil
}

// part0 is the op copying part p out of the same packed tensor.
func (op *attendPartOp) part0(p attendPart, all G.Nodes) *attendPartOp {
	return op.attendCore.part(p, dimsOf(all[1:]))
}

// contextGrads sets res to the gradients from the context's: one
// attendBackOp, cut up.
func (op *attendPartOp) contextGrads(all G.Nodes, grad *Node, res G.Nodes) error {
	packed, ins := all[0], all[1:]
	a, err := op.sizes(shapesOf(ins))
	if err != nil {
		return err
	}
	dims := append([]int{1, 2}, dimsOf(ins)...)
	back := op.grad(&err, &attendBackOp{base{name: "AttentionBack", args: op.hashArgs(), in: dims, out: 1}, op.attendCore},
		append(G.Nodes{packed, grad}, ins...)...)
	l := backend.AttendBack{F: a}.Layout()
	cut := func(off int, sh ...int) *Node {
		return op.grad(&err, &unflatOp{base{name: "Unflat", args: fmt.Sprint(off, sh), in: []int{1}, out: len(sh)}, off, sh}, back)
	}
	B, S, w := a.B, a.S, a.A+a.K
	if op.kind == attendScored {
		res[3] = cut(0, B, S)
	} else {
		res[3] = cut(l.Keys, B, S, w)
		res[4] = cut(l.Query, B, w)
	}
	if op.kind == attendAdditive {
		// ∂v before ∂c, so that AttentionDV runs first and adds ∂c too
		// (absorbs)
		t := a.Layout().T
		dv := &attendDVOp{base{name: "AttentionDV", args: fmt.Sprint(B*S, ",", a.A, ",", t, ",", B, ",", l.Query), in: []int{1, 1}, out: 1},
			B * S, a.A, t, B, l.Query}
		res[6] = op.grad(&err, dv, packed, back)
		res[5] = op.grad(&err, newSumRows(2), res[4])
	}
	// the values' ∂H = (cc·w)⊗∂ctx: an Outer of the weights at the start
	// of the packed tensor, which adds into the sum of the values'
	// gradients as the unfused chain's Outer does (on the host and on a
	// device: exec.go, fold.go)
	dH := &attendDHOp{base{name: "AttentionDH", args: fmt.Sprint(B, ",", S, ",", a.D, ",", op.cc), in: []int{1, 2}, out: 3}, B, S, a.D, op.cc}
	res[1] = op.grad(&err, dH, packed, grad)
	return err
}

func (op *attendBackOp) outShape(s []tensor.Shape) (tensor.Shape, error) {
	a, err := op.sizes(s[2:])
	if err != nil {
		return nil, err
	}
	return tensor.Shape{backend.AttendBack{F: a}.Layout().N}, nil
}

// forward: the chain's gradient into the flat tensor (backend.AttendBack),
// ∂w in a working buffer.
func (op *attendBackOp) forward(c *call) error { return op.absorbing(c, c.out, false, nil, nil) }

// absorbing is forward, adding ∂H into dsts[0] and the key-side gradient
// into dsts[1] where they are set (absorbs), in order.
func (op *attendBackOp) absorbing(c *call, _ backend.Buf, _ bool, dsts []backend.Buf, order []int) error {
	fa, a, err := op.attend(c, op.name, 2)
	if err != nil {
		return err
	}
	a.Out = c.in[0]
	dw, err := c.temp(op.workspace(c.sh)[0])
	if err != nil {
		return err
	}
	ab := backend.AttendBack{F: a, G: c.in[1], DW: dw, Out: c.out}
	if len(dsts) > 0 {
		ab.DH = dsts[0]
	}
	if len(dsts) > 1 {
		ab.Keys, ab.KeysFirst = dsts[1], order[0] == 1
	}
	return fa.AttendBack(ab)
}

// absorbs: the values' ∂H (an attendDHOp of this op's packed tensor and
// ∂ctx) in slot 0, and the key-side gradient (the Unflat of this op's
// value at the Keys block) in slot 1, each where its step adds into a sum
// (fold.go's absorbSteps): they then cost no launch of their own.
func (op *attendBackOp) absorbs(m *Machine, shapes []tensor.Shape, p, k int) (int, bool) {
	sp, sk := m.steps[p], m.steps[k]
	switch o := sk.op.(type) {
	case *attendDHOp:
		return 0, len(sk.args) == 2 && sk.args[0] == sp.args[0] && sk.args[1] == sp.args[1]
	case *unflatOp:
		if op.kind == attendScored || len(sk.args) != 1 || sk.args[0] != sp.out {
			return 0, false
		}
		s := make([]tensor.Shape, len(sp.args)-2)
		for i, x := range sp.args[2:] {
			s[i] = shapes[x]
		}
		a, err := op.sizes(s)
		return 1, err == nil && o.off == (backend.AttendBack{F: a}).Layout().Keys && o.shape.TotalSize() == a.B*a.S*(a.A+a.K)
	}
	return 0, false
}

// workspace: ∂w [B,S].
func (op *attendBackOp) workspace(in []tensor.Shape) []int {
	m := in[3] // (packed, ∂ctx, values, mask, …)
	return []int{m[0] * m[1] * (1 + min(op.h-1, 1)*op.h)}
}

// attendDHOp: (packed, ∂ctx) → ∂H = (cc·w)⊗∂ctx [B,S,D], the weights
// read at the start of the packed tensor (backend.AttendLayout).
type attendDHOp struct {
	base
	b, s, d int
	cc      float64
}

func (op *attendDHOp) outShape([]tensor.Shape) (tensor.Shape, error) {
	return tensor.Shape{op.b, op.s, op.d}, nil
}

// into: Outer's, of the weights and ∂ctx (with acc added, as Outer's: the
// product rounded, then added).
func (op *attendDHOp) into(c *call, dst backend.Buf, acc bool) error {
	return c.be.Outer(dst, c.in[0], c.in[1], op.b, op.s, op.d, 1, op.cc, acc)
}

// attendDVOp reads T [B,S,A] in the packed tensor (from t, after the
// weights) and ∂s [B,S] at the start of the flat gradients.
func (op *attendDVOp) outShape([]tensor.Shape) (tensor.Shape, error) { return tensor.Shape{op.a}, nil }

// into: ∂v[a] = Σ_n T[n,a]·∂s[n], the product ProjLastV computes
// (backend.AttendSums); with acc the product rounded, then added: the bits
// of the forward, then the Add it folds (fold.go).
func (op *attendDVOp) into(c *call, dst backend.Buf, acc bool) error {
	return op.absorbing(c, dst, acc, nil, nil)
}

// workspace: the product before it is added (the cpu's).
func (op *attendDVOp) workspace([]tensor.Shape) []int { return []int{op.a} }

// absorbing is into, adding ∂c = Σ_b ∂u into dsts[0] where it is set.
func (op *attendDVOp) absorbing(c *call, dst backend.Buf, acc bool, dsts []backend.Buf, _ []int) error {
	fa, err := fused(c, op.name)
	if err != nil {
		return err
	}
	work, err := c.temp(op.a)
	if err != nil {
		return err
	}
	as := backend.AttendSums{N: op.n, A: op.a, B: op.b, T: c.in[0], TOff: op.t, DS: c.in[1], DV: dst, Work: work, DVAcc: acc}
	if len(dsts) == 1 {
		as.DU, as.DUOff, as.DC = c.in[1], op.q, dsts[0]
	}
	return fa.AttendSums(as)
}

// absorbs: the bias's ∂c, a SumRows of ∂u (the Unflat of the flat
// gradients this op reads, at ∂u's block) that adds into its sum, in slot
// 0 (fold.go's absorbSteps).
func (op *attendDVOp) absorbs(m *Machine, shapes []tensor.Shape, p, k int) (int, bool) {
	sk := m.steps[k]
	if _, ok := sk.op.(*sumRowsOp); !ok || len(sk.args) != 1 || m.stepOf[sk.args[0]] < 0 {
		return 0, false
	}
	u := m.steps[m.stepOf[sk.args[0]]] // ∂u's
	o, ok := u.op.(*unflatOp)
	return 0, ok && len(u.args) == 1 && u.args[0] == m.steps[p].args[1] && o.off == op.q && shapes[u.out].Eq(tensor.Shape{op.b, op.a})
}
