package cpu

import (
	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/gx/kern"
)

// The fused attention of one decoder position (backend.FusedAttention) on
// the host: each part is the cpu's own kernel of the unfused op (addTanh,
// matVec, bmv, maskedSoftmax, wsum; bmv, softmaxGrad, outerHeads,
// additiveDelta, sumMid), on the same values in the same order, so the
// fused op and the unfused chain give the same bits; the additive score's
// two parts each way run a batch row at a time, the second reading what
// the first wrote while it is in the cache. The OpenCL kernel
// (internal/device/kernels/attend.cl) sums its per-value parts in the same
// order and its row sums (the score, ∂w) as a work-group tree.

var _ backend.FusedAttention = (*CPU)(nil)

// Attend is the chain forward (backend.Attend).
func (*CPU) Attend(a backend.Attend) error {
	var bs [12]sized
	is32, err := checkSized("Attend", attendSized(&bs, a)...)
	return typed(is32, err, func() { attend[float32](a) }, func() { attend[float64](a) })
}

// attendSized is the forward's buffers and the values it reads or writes
// of each, in bs (no allocation; room for five more).
func attendSized(bs *[12]sized, a backend.Attend) []sized {
	B, S := a.B, a.S
	bs[0], bs[1], bs[2] = sized{a.Out, a.Layout().N}, sized{a.Mask, B * S}, sized{a.H, B * S * a.D}
	switch {
	case a.A > 0:
		bs[3], bs[4], bs[5], bs[6] = sized{a.P, B * S * a.A}, sized{a.U, B * a.A}, sized{a.C, a.A}, sized{a.V, a.A}
		return bs[:7]
	case a.K > 0:
		bs[3], bs[4] = sized{a.X, B * S * a.K}, sized{a.Q, B * a.K}
		return bs[:5]
	}
	bs[3] = sized{a.Score, B * S}
	return bs[:4]
}

func attend[T kern.Float](a backend.Attend) {
	get := vals[T]
	B, S, D, A, K, n, h := a.B, a.S, a.D, a.A, a.K, a.B*a.S, a.NHeads()
	l, out := a.Layout(), get(a.Out)
	s, w, ctx := out[l.S:min(l.M, l.S+n*h)], out[l.W:l.W+n], out[l.Ctx:l.Ctx+B*D] // the scores' block: n·h, or none (l.M past it where Align pads)
	switch {
	case A > 0:
		additiveRows(get(a.P), get(a.U), get(a.C)[:A], get(a.V)[:A], out[l.T:l.T+n*A], s, B, S, A)
	case K > 0:
		bmv(get(a.X), get(a.Q), s, B, S, K, h, T(a.SC))
	default:
		s = get(a.Score)[:n]
	}
	if h > 1 { // each head over the mask, then the heads' mean
		m, hw := out[l.M:l.M+n*h], out[l.HW:l.HW+n*h]
		repeatRows(get(a.Mask), m, B, S, h, 1)
		maskedSoftmax(s, m, hw, S)
		groupSum(hw, w, B, S, h, T(1/float64(h)))
	} else {
		maskedSoftmax(s, get(a.Mask)[:n], w, S)
	}
	wsum(w, get(a.H), ctx, B, S, D, 1, T(a.CC))
}

// AttendBack is the chain's gradient (backend.AttendBack).
func (*CPU) AttendBack(a backend.AttendBack) error {
	f := a.F
	B, S := f.B, f.S
	nw := B * S // ∂w, and with heads ∂hw
	if f.NHeads() > 1 {
		nw += B * f.NHeads() * S
	}
	var bs [12]sized // the forward's, then five more
	ss := append(attendSized(&bs, f), sized{a.G, B * f.D}, sized{a.DW, nw}, sized{a.Out, a.Layout().N})
	if a.DH.Len() > 0 {
		ss = append(ss, sized{a.DH, B * S * f.D})
	}
	if a.Keys.Len() > 0 {
		ss = append(ss, sized{a.Keys, B * S * (f.A + f.K)})
	}
	is32, err := checkSized("AttendBack", ss...)
	return typed(is32, err, func() { attendBack[float32](a) }, func() { attendBack[float64](a) })
}

func attendBack[T kern.Float](a backend.AttendBack) {
	get := vals[T]
	f := a.F
	B, S, D, A, K, n, h := f.B, f.S, f.D, f.A, f.K, f.B*f.S, f.NHeads()
	fl, l := f.Layout(), a.Layout()
	fo, out, g := get(f.Out), get(a.Out), get(a.G)
	w, dw, ds := fo[fl.W:fl.W+n], get(a.DW)[:n], out[:n*h]
	bmv(get(f.H), g, dw, B, S, D, 1, T(f.CC))
	if h > 1 { // the heads' mean's gradient, then each head's softmax's
		dhw := get(a.DW)[n : n+n*h]
		repeatRows(dw, dhw, B, S, h, T(1/float64(h)))
		softmaxGrad(fo[fl.HW:fl.HW+n*h], dhw, ds, S)
	} else {
		softmaxGrad(w, dw, ds, S)
	}
	dH := func() { // Outer's, adding (attendDHOp's)
		if a.DH.Len() > 0 {
			outerHeads(w, g, get(a.DH), B, S, D, 1, T(f.CC), true)
		}
	}
	if !a.KeysFirst {
		dH()
	}
	keys := out[l.Keys : l.Keys+n*(A+K)]
	switch {
	case A > 0:
		additiveDeltaRows2(fo[fl.T:fl.T+n*A], get(f.V)[:A], ds, keys, out[l.Query:l.Query+B*A], B, S, A)
	case K > 0:
		outerHeads(ds, get(f.Q), keys, B, S, K, h, T(f.SC), false)
		wsum(ds, get(f.X), out[l.Query:l.Query+B*K], B, S, K, h, T(f.SC))
	}
	if a.Keys.Len() > 0 { // the block copied out, then added (an Unflat's into, adding)
		kern.Axpy(1, keys, get(a.Keys)[:len(keys)])
	}
	if a.KeysFirst {
		dH()
	}
}

// AttendSums is the additive score's sums over the batch
// (backend.AttendSums): ∂v as MatVec's product, into Work then added as an
// Add adds it, and ∂c as SumRows' acc.
func (*CPU) AttendSums(a backend.AttendSums) error {
	N, A := a.N, a.A
	bs := [6]sized{{a.DV, A}, {a.T, a.TOff + N*A}, {a.DS, N}, {a.Work, A}}
	ss := bs[:4]
	if a.DC.Len() > 0 {
		ss = append(ss, sized{a.DC, A}, sized{a.DU, a.DUOff + a.B*A})
	}
	is32, err := checkSized("AttendSums", ss...)
	return typed(is32, err, func() { attendSums[float32](a) }, func() { attendSums[float64](a) })
}

func attendSums[T kern.Float](a backend.AttendSums) {
	get := vals[T]
	N, A := a.N, a.A
	dv, t, ds := get(a.DV)[:A], get(a.T)[a.TOff:], get(a.DS)[:N]
	if !a.DVAcc {
		matVec(true, A, N, t, A, ds, dv, false)
	} else {
		work := get(a.Work)[:A]
		matVec(true, A, N, t, A, ds, work, false)
		add(dv, dv, work)
	}
	if a.DC.Len() > 0 {
		colSums(get(a.DC)[:A], get(a.DU)[a.DUOff:], A, a.B, true)
	}
}

// additiveRows is addTanh then matVec (the additive score) a block of
// rows at a time: T's rows are read by the product while they are in the
// cache. The product's calls are matVec's own (the same blocks of rows
// over the same threads: a row's sum may depend on the rows its call
// has), and each row of T is addTanhRows', so the values are the unfused
// ops'.
func additiveRows[T kern.Float](P, u, c, v, t, s []T, B, S, A int) {
	n := B * S
	if nb := (n + matVecBlock - 1) / matVecBlock; kern.Splits(nb, matVecBlock*A) {
		kern.Parallel(nb, matVecBlock*A, func(b0, b1 int) { additiveBlocks(P, u, c, v, t, s, S, A, b0, b1) })
	} else {
		additiveBlocks(P, u, c, v, t, s, S, A, 0, nb)
	}
}

// additiveBlocks is additiveRows on blocks [b0, b1) of matVecBlock rows.
func additiveBlocks[T kern.Float](P, u, c, v, t, s []T, S, A, b0, b1 int) {
	r0, r1 := b0*matVecBlock, min(len(s), b1*matVecBlock)
	for r := r0; r < r1; r++ {
		b := r / S
		kern.AddTanhs(P[r*A:(r+1)*A], u[b*A:(b+1)*A], c, t[r*A:(r+1)*A])
	}
	gemvBeta(false, r1-r0, A, 1, t[r0*A:], A, v, 0, s[r0:r1])
}

// additiveDeltaRows2 is additiveDelta then sumMid a batch row at a time
// (δ [B,S,A] and ∂u [B,A]), batch rows over threads: each δ row is added
// into ∂u as it is made, in the order sumMid adds them.
func additiveDeltaRows2[T kern.Float](t, v, g, delta, du []T, B, S, A int) {
	if kern.Splits(B, S*A) {
		kern.Parallel(B, S*A, func(b0, b1 int) { deltaSumRows(t, v, g, delta, du, S, A, b0, b1) })
	} else {
		deltaSumRows(t, v, g, delta, du, S, A, 0, B)
	}
}

// deltaSumRows is additiveDeltaRows2 on batch rows [b0, b1).
func deltaSumRows[T kern.Float](t, v, g, delta, du []T, S, A, b0, b1 int) {
	for b := b0; b < b1; b++ {
		additiveDeltaRows(t, v, g, delta, b*S, (b+1)*S, false)
		colSums(du[b*A:(b+1)*A], delta[b*S*A:], A, S, false)
	}
}
