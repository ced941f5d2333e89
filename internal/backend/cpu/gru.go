package cpu

import (
	"fmt"

	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/gx/kern"
)

// The GRU family: rows through kern's row kernels (float32 vectorised
// where the processor allows), split over threads where the work is large
// (kern.Parallel), each row computed as alone: the same bits either way.

// vals is a host buffer's values as []T (T its dtype).
func vals[T kern.Float](b backend.Buf) []T {
	if v, ok := any(b.F32).([]T); ok {
		return v
	}
	return any(b.F64).([]T)
}

func (*CPU) GRUGates(gates backend.Buf, xs []backend.Buf, hh, b, bhn, _ backend.Buf, B, H int) error {
	if len(xs) == 0 {
		return fmt.Errorf("backend: cpu: GRUGates: no input projections")
	}
	is32, err := checkSized("GRUGates", sized{gates, B * 4 * H}, sized{hh, B * 3 * H}, sized{b, 3 * H}, sized{bhn, H})
	for i := 0; i < len(xs) && err == nil; i++ {
		_, err = check("GRUGates", B*3*H, gates, xs[i])
	}
	return typed(is32, err, func() { gruGates(xs, hh.F32, b.F32, bhn.F32, gates.F32, B, H) },
		func() { gruGates(xs, hh.F64, b.F64, bhn.F64, gates.F64, B, H) })
}

// gruGates computes the gates of B rows; xs are the input projections.
func gruGates[T kern.Float](xs []backend.Buf, hh, b, bhn, out []T, B, H int) {
	b, bhn = b[:3*H], bhn[:H]
	if !kern.Splits(B, 4*H) { // no closure to allocate
		gruGatesRows(xs, hh, b, bhn, out, H, 0, B)
		return
	}
	kern.Parallel(B, 4*H, func(r0, r1 int) { gruGatesRows(xs, hh, b, bhn, out, H, r0, r1) })
}

func gruGatesRows[T kern.Float](xs []backend.Buf, hh, b, bhn, out []T, H, r0, r1 int) {
	for r := r0; r < r1; r++ {
		h := hh[r*3*H : (r+1)*3*H]
		o := out[r*4*H : (r+1)*4*H]
		kern.Add2(b[:2*H], h[:2*H], o[:2*H]) // r and z: b + hh; n: b
		copy(o[2*H:3*H], b[2*H:])
		for _, x := range xs {
			kern.Axpy(1, vals[T](x)[r*3*H:(r+1)*3*H], o[:3*H])
		}
		kern.Sigmoids(o[:2*H], o[:2*H])
		rg, n, hn := o[:H], o[2*H:3*H], o[3*H:4*H]
		kern.GRUN(h[2*H:3*H], bhn, rg, hn, n) // hn = hh_n + b_hn; n += r ⊙ hn
		kern.Tanhs(n, n)
	}
}

func (*CPU) GRUGatesBack(out, gates, g backend.Buf, B, H int, dh bool) error {
	is32, err := checkSized("GRUGatesBack", sized{out, B * 3 * H}, sized{gates, B * 4 * H}, sized{g, B * 4 * H})
	return typed(is32, err, func() { gruGatesBack(gates.F32, g.F32, out.F32, B, H, dh) },
		func() { gruGatesBack(gates.F64, g.F64, out.F64, B, H, dh) })
}

func gruGatesBack[T kern.Float](gates, g, out []T, B, H int, dh bool) {
	if !kern.Splits(B, 4*H) {
		gruGatesBackRows(gates, g, out, H, dh, 0, B)
		return
	}
	kern.Parallel(B, 4*H, func(r0, r1 int) { gruGatesBackRows(gates, g, out, H, dh, r0, r1) })
}

func gruGatesBackRows[T kern.Float](gates, g, out []T, H int, dh bool, r0, r1 int) {
	for row := r0; row < r1; row++ {
		x := gates[row*4*H : (row+1)*4*H]
		d := g[row*4*H : (row+1)*4*H]
		o := out[row*3*H : (row+1)*3*H]
		if x32, ok := any(x).([]float32); ok {
			kern.GRUGatesBackRow32(x32, any(d).([]float32), any(o).([]float32), H, dh)
		} else {
			kern.GRUGatesBackRow(x, d, o, H, 0, dh)
		}
	}
}

func (*CPU) GRUBlend(out, gates, h backend.Buf, B, H int) error {
	is32, err := checkSized("GRUBlend", sized{out, B * H}, sized{gates, B * 4 * H}, sized{h, B * H})
	return typed(is32, err, func() { gruBlend(gates.F32, h.F32, out.F32, B, H) },
		func() { gruBlend(gates.F64, h.F64, out.F64, B, H) })
}

func gruBlend[T kern.Float](gates, h, out []T, B, H int) {
	for row := 0; row < B; row++ {
		x := gates[row*4*H : (row+1)*4*H]
		kern.Blend(x[2*H:3*H], x[H:2*H], h[row*H:(row+1)*H], out[row*H:(row+1)*H])
	}
}

func (*CPU) GRUBlendDG(out, gates, h, g backend.Buf, B, H int) error {
	is32, err := checkSized("GRUBlendDG", sized{out, B * 4 * H}, sized{gates, B * 4 * H}, sized{h, B * H}, sized{g, B * H})
	return typed(is32, err, func() { gruBlendDG(gates.F32, h.F32, g.F32, out.F32, B, H) },
		func() { gruBlendDG(gates.F64, h.F64, g.F64, out.F64, B, H) })
}

func gruBlendDG[T kern.Float](gates, h, g, out []T, B, H int) {
	for row := 0; row < B; row++ {
		x := gates[row*4*H : (row+1)*4*H]
		o := out[row*4*H : (row+1)*4*H]
		z, n := x[H:2*H], x[2*H:3*H]
		hr, gr := h[row*H:(row+1)*H], g[row*H:(row+1)*H]
		clear(o[:H])
		clear(o[3*H:])
		for i := 0; i < H; i++ {
			o[H+i] = gr[i] * (hr[i] - n[i])
			o[2*H+i] = gr[i] * (1 - z[i])
		}
	}
}

func (*CPU) GRUBlendDH(out, gates, g backend.Buf, B, H int, acc bool) error {
	is32, err := checkSized("GRUBlendDH", sized{out, B * H}, sized{gates, B * 4 * H}, sized{g, B * H})
	return typed(is32, err, func() { gruBlendDH(gates.F32, g.F32, out.F32, B, H, acc) },
		func() { gruBlendDH(gates.F64, g.F64, out.F64, B, H, acc) })
}

func gruBlendDH[T kern.Float](gates, g, out []T, B, H int, acc bool) {
	for row := 0; row < B; row++ {
		z := gates[row*4*H+H : row*4*H+2*H]
		gr, o := g[row*H:(row+1)*H], out[row*H:(row+1)*H]
		for i := range o {
			if acc {
				o[i] += gr[i] * z[i]
			} else {
				o[i] = gr[i] * z[i]
			}
		}
	}
}

// ColSums is a clear (unless acc) and kern.Axpy of every row in order.
func (*CPU) ColSums(y backend.Buf, yOff int, x backend.Buf, xOff, ld, rows, cols int, acc bool) error {
	is32, err := check("ColSums", 0, y, x)
	if err == nil && (yOff < 0 || xOff < 0 || yOff+cols > y.Len() || (rows > 0 && (ld < cols || xOff+(rows-1)*ld+cols > x.Len()))) {
		err = fmt.Errorf("backend: cpu: ColSums: %d×%d block from %d (ld %d) of %d values into %d of %d", rows, cols, xOff, ld, x.Len(), yOff, y.Len())
	}
	return typed(is32, err, func() { colSums(y.F32[yOff:yOff+cols], x.F32[xOff:], ld, rows, acc) },
		func() { colSums(y.F64[yOff:yOff+cols], x.F64[xOff:], ld, rows, acc) })
}

// colSums sets y = Σ_r x[r·ld:][:len(y)]: y cleared (unless acc), then
// each row added in order (kern.Axpy).
func colSums[T kern.Float](y, x []T, ld, rows int, acc bool) {
	if !acc {
		clear(y)
	}
	for r := 0; r < rows; r++ {
		kern.Axpy(1, x[r*ld:r*ld+len(y)], y)
	}
}

// GRUSeq: U h_prev at every position on U packed once per run
// (kern.GemmPacked) where U is a weight and the processor has the AVX-512
// or AVX2 kernel, else on the pure-Go product (kern.Sgemm) from Uᵀ (transposed once
// per run for a weight, into ut at every call otherwise), else (float64,
// or no AVX) on GemmSlices.
func (c *CPU) GRUSeq(out, xw backend.Buf, u backend.Mat, b, bhn, h0, keep backend.Buf, B, S, H int, reverse bool, hh, ut backend.Buf) error {
	is32, err := checkSized("GRUSeq", sized{out, B * S * 5 * H}, sized{xw, S * B * 3 * H}, sized{hh, B * 3 * H},
		sized{u.Buf, 3 * H}, sized{b, 3 * H}, sized{keep, B * S}, sized{h0, B * H}, sized{bhn, H})
	if err := checkU("GRUSeq", u, H, err); err != nil {
		return err
	}
	if !is32 {
		gruSeqFwd(nil, nil, out.F64, xw.F64, u.Buf.F64, b.F64, bhn.F64, h0.F64, keep.F64, hh.F64, B, S, H, reverse)
		return nil
	}
	U := u.Buf.F32
	var pu *kern.PackedB
	var uT []float32
	switch {
	case u.Const && kern.PackedFast:
		pu = c.PackedB(U, true, H, 3*H, H)
	case u.Const && kern.OwnSgemm():
		uT = c.Transposed(U, 3*H, H)
	case kern.OwnSgemm():
		if ut.Len() < 3*H*H {
			return fmt.Errorf("backend: cpu: GRUSeq: ut holds %d values, U (not a weight) needs 3H·H = %d", ut.Len(), 3*H*H)
		}
		uT = ut.F32[:3*H*H]
		for j := 0; j < 3*H; j++ {
			for l, v := range U[j*H : (j+1)*H] {
				uT[l*3*H+j] = v
			}
		}
	}
	gruSeqFwd(pu, uT, out.F32, xw.F32, U, b.F32, bhn.F32, h0.F32, keep.F32, hh.F32, B, S, H, reverse)
	return nil
}

// checkU is err, or where nil an error unless U is a [3H,H] matrix at 0.
func checkU(name string, u backend.Mat, H int, err error) error {
	if err == nil && (u.T || u.Off != 0 || u.Ld != H || u.Buf.Len() < 3*H*H) {
		err = fmt.Errorf("backend: cpu: %s: U is not a [3H,H] = [%d,%d] matrix at 0 (Off %d, Ld %d, T %v, %d values)", name, 3*H, H, u.Off, u.Ld, u.T, u.Buf.Len())
	}
	return err
}

// position returns the position of step t.
func position(t, S int, reverse bool) int {
	if reverse {
		return S - 1 - t
	}
	return t
}

// gruSeqFwd is GRUSeq's loop: hh = U h_prev on pu (U packed) or ut (Uᵀ)
// where given, else on GemmSlices, then the rows of the position.
func gruSeqFwd[T kern.Float](pu *kern.PackedB, ut []float32, out, xw, U, b, bhn, h0, keep, hh []T, B, S, H int, reverse bool) {
	W := 5 * H
	prev, ld := h0, H // h_prev as a [B,H] matrix with leading dimension ld
	// the rows of position p0 from h_prev = prev0 (leading dimension ld0):
	// one closure for the whole sequence
	var p0, ld0 int
	var prev0 []T
	rows := func(r0, r1 int) {
		for r := r0; r < r1; r++ {
			o := out[(r*S+p0)*W : (r*S+p0+1)*W]
			x := xw[(p0*B+r)*3*H : (p0*B+r+1)*3*H]
			h := hh[r*3*H : (r+1)*3*H]
			hp := prev0[r*ld0 : r*ld0+H]
			gates := o[H:]
			kern.Add3(x[:2*H], b[:2*H], h[:2*H], gates[:2*H]) // r, z pre-activations
			kern.Sigmoids(gates[:2*H], gates[:2*H])
			rg, n, hn := gates[:H], gates[2*H:3*H], gates[3*H:4*H]
			kern.Add2(x[2*H:3*H], b[2*H:3*H], n)
			kern.GRUN(h[2*H:3*H], bhn, rg, hn, n) // hn = hh_n + b_hn; n = x_n + b_n + r ⊙ hn
			kern.Tanhs(n, n)
			kern.BlendCarry(keep[r*S+p0], n, gates[H:2*H], hp, o[:H])
		}
	}
	for t := 0; t < S; t++ {
		p := position(t, S, reverse)
		if pu != nil {
			kern.GemmPacked(B, any(prev).([]float32), ld, pu, any(hh).([]float32), 3*H, false)
		} else if ut != nil {
			kern.Sgemm(false, false, B, 3*H, H, any(prev).([]float32), ld, ut, 3*H, 0, any(hh).([]float32), 3*H, nil)
		} else {
			GemmSlices(false, true, B, 3*H, H, 1, prev, ld, U, H, 0, hh, 3*H)
		}
		p0, prev0, ld0 = p, prev, ld
		kern.Parallel(B, W, rows) // each row as alone: the same bits split or not
		prev, ld = out[p*W:], S*W
	}
}

// GRUSeqBack: ∂h_prev += ∂hh·U on U packed once per run where U is a
// weight and the processor has the AVX-512 or AVX2 kernel, else on GemmSlices.
func (c *CPU) GRUSeqBack(dxi, dhh, hprev, carry backend.Buf, fwd, gr backend.Buf, u backend.Mat, h0, keep backend.Buf, B, S, H int, reverse bool, dhp backend.Buf) error {
	is32, err := checkSized("GRUSeqBack", sized{fwd, B * S * 5 * H}, sized{dxi, S * B * 3 * H}, sized{dhh, S * B * 3 * H},
		sized{gr, S * B * H}, sized{hprev, S * B * H}, sized{h0, B * H}, sized{carry, B * H}, sized{dhp, B * H},
		sized{keep, B * S}, sized{u.Buf, 0})
	if err := checkU("GRUSeqBack", u, H, err); err != nil {
		return err
	}
	if !is32 {
		gruSeqBack(nil, dxi.F64, dhh.F64, hprev.F64, carry.F64, fwd.F64, gr.F64, u.Buf.F64, h0.F64, keep.F64, dhp.F64, B, S, H, reverse)
		return nil
	}
	var pu *kern.PackedB
	if u.Const && kern.PackedFast {
		pu = c.PackedB(u.Buf.F32, false, 3*H, H, H)
	}
	gruSeqBack(pu, dxi.F32, dhh.F32, hprev.F32, carry.F32, fwd.F32, gr.F32, u.Buf.F32, h0.F32, keep.F32, dhp.F32, B, S, H, reverse)
	return nil
}

func gruSeqBack[T kern.Float](pu *kern.PackedB, dxi, dhh, hprev, carry, fwd, gr, U, h0, keep, dhp []T, B, S, H int, reverse bool) {
	W := 5 * H
	carry, dhp = carry[:B*H], dhp[:B*H]
	clear(carry)
	// the rows of step t0 (position p0): one closure for the whole sequence
	var t0, p0 int
	rows := func(r0, r1 int) {
		t, p := t0, p0
		for r := r0; r < r1; r++ {
			x := fwd[(r*S+p)*W : (r*S+p+1)*W]
			gh := gr[(r*S+p)*H : (r*S+p+1)*H]
			var hp []T
			if t == 0 {
				hp = h0[r*H : (r+1)*H]
			} else {
				q := position(t-1, S, reverse)
				hp = fwd[(r*S+q)*W : (r*S+q)*W+H]
			}
			copy(hprev[(p*B+r)*H:(p*B+r+1)*H], hp)
			c := carry[r*H : (r+1)*H]
			di := dxi[(p*B+r)*3*H : (p*B+r+1)*3*H]
			dh := dhh[(p*B+r)*3*H : (p*B+r+1)*3*H]
			if x32, ok := any(x).([]float32); ok {
				kern.GRUSeqBackRow32(float32(keep[r*S+p]), any(gh).([]float32), any(c).([]float32), x32[H:],
					any(hp).([]float32), any(di).([]float32), any(dh).([]float32), H)
			} else {
				kern.GRUSeqBackRow(keep[r*S+p], gh, c, x[H:], hp, di, dh, H, 0)
			}
		}
	}
	for t := S - 1; t >= 0; t-- {
		p := position(t, S, reverse)
		t0, p0 = t, p
		kern.Parallel(B, W, rows) // each row as alone: the same bits split or not
		// ∂h_prev += ∂hh · U
		if pu != nil {
			kern.GemmPacked(B, any(dhh[p*B*3*H:(p+1)*B*3*H]).([]float32), 3*H, pu, any(dhp).([]float32), H, false)
		} else {
			GemmSlices(false, false, B, H, 3*H, 1, dhh[p*B*3*H:(p+1)*B*3*H], 3*H, U, H, 0, dhp, H)
		}
		kern.Axpy(1, dhp, carry)
	}
}
