package cpu

import (
	"fmt"

	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/gx/kern"
)

// Embed refuses an id that is not a whole number in [0, V).
func (*CPU) Embed(out, E, ids backend.Buf, V, D, N int) error {
	is32, err := checkSized("Embed", sized{out, N * D}, sized{E, V * D}, sized{ids, N})
	if err != nil {
		return err
	}
	if is32 {
		return embed(E.F32, ids.F32[:N], out.F32, V, D)
	}
	return embed(E.F64, ids.F64[:N], out.F64, V, D)
}

func embed[T kern.Float](E, ids, out []T, V, D int) error {
	for n, x := range ids {
		i := int(x)
		if i < 0 || i >= V || T(i) != x {
			return fmt.Errorf("id %v at %d is not in [0, %d)", x, n, V)
		}
		copy(out[n*D:(n+1)*D], E[i*D:(i+1)*D])
	}
	return nil
}

// EmbedGrad adds the rows of g in ascending n (into dE as it is with acc).
func (*CPU) EmbedGrad(dE, g, ids backend.Buf, V, D, N int, acc bool) error {
	is32, err := checkSized("EmbedGrad", sized{dE, V * D}, sized{g, N * D}, sized{ids, N})
	return typed(is32, err, func() { embedGrad(g.F32, ids.F32[:N], dE.F32[:V*D], D, acc) },
		func() { embedGrad(g.F64, ids.F64[:N], dE.F64[:V*D], D, acc) })
}

// embedGrad adds row n of g to row ids[n] of out (cleared first unless
// acc), in ascending n.
func embedGrad[T kern.Float](g, ids, out []T, D int, acc bool) {
	if !acc {
		clear(out)
	}
	for n, x := range ids {
		i := int(x)
		kern.Axpy(1, g[n*D:(n+1)*D], out[i*D:(i+1)*D])
	}
}

func (*CPU) Im2Col(out, x backend.Buf, geo backend.ConvGeom, B, C int) error {
	ho, wo := geo.Out()
	R, L := ho*wo*geo.K*geo.K, geo.H*geo.W
	is32, err := checkSized("Im2Col", sized{out, B * R * C}, sized{x, B * L * C})
	return typed(is32, err, func() { im2col(x.F32, out.F32, geo, B, C) },
		func() { im2col(x.F64, out.F64, geo, B, C) })
}

// src is the position row r = (o, ky, kx) of an image's im2col reads
// (backend.ConvGeom), −1 outside the image.
func src(geo backend.ConvGeom, wo, r int) int {
	kx, ky, o := r%geo.K, r/geo.K%geo.K, r/(geo.K*geo.K)
	y, x := o/wo*geo.Stride-geo.Pad+ky, o%wo*geo.Stride-geo.Pad+kx
	if y < 0 || y >= geo.H || x < 0 || x >= geo.W {
		return -1
	}
	return y*geo.W + x
}

// im2col copies, per image b, channel vector src(r) of x (or zeros) to
// row r of out, r over (o, ky, kx).
func im2col[T kern.Float](x, out []T, geo backend.ConvGeom, B, C int) {
	ho, wo := geo.Out()
	R, L := ho*wo*geo.K*geo.K, geo.H*geo.W
	for b := range B {
		xb, ob := x[b*L*C:(b+1)*L*C], out[b*R*C:(b+1)*R*C]
		for r := range R {
			o := ob[r*C : (r+1)*C]
			if i := src(geo, wo, r); i < 0 {
				clear(o)
			} else {
				copy(o, xb[i*C:(i+1)*C])
			}
		}
	}
}

func (*CPU) Col2Im(out, g backend.Buf, geo backend.ConvGeom, B, C int) error {
	ho, wo := geo.Out()
	R, L := ho*wo*geo.K*geo.K, geo.H*geo.W
	is32, err := checkSized("Col2Im", sized{out, B * L * C}, sized{g, B * R * C})
	return typed(is32, err, func() { col2im(g.F32, out.F32[:B*L*C], geo, B, C) },
		func() { col2im(g.F64, out.F64[:B*L*C], geo, B, C) })
}

// col2im sets out to zeros, then adds row r of g to channel vector
// src(r) of out, per image, in ascending r.
func col2im[T kern.Float](g, out []T, geo backend.ConvGeom, B, C int) {
	clear(out)
	ho, wo := geo.Out()
	R, L := ho*wo*geo.K*geo.K, geo.H*geo.W
	for b := range B {
		gb, ob := g[b*R*C:(b+1)*R*C], out[b*L*C:(b+1)*L*C]
		for r := range R {
			i := src(geo, wo, r)
			if i < 0 {
				continue
			}
			d, s := ob[i*C:(i+1)*C], gb[r*C:(r+1)*C]
			for c, v := range s {
				d[c] += v
			}
		}
	}
}
