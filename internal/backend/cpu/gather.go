package cpu

import (
	"fmt"

	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/gx/kern"
)

// Embed refuses an id that is not a whole number in [0, V).
func (*CPU) Embed(out, E, ids backend.Buf, V, D, N int) error {
	is32, err := checkSizes("Embed", []backend.Buf{out, E, ids}, N*D, V*D, N)
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
	is32, err := checkSizes("EmbedGrad", []backend.Buf{dE, g, ids}, V*D, N*D, N)
	if err != nil {
		return err
	}
	if is32 {
		if !acc {
			clear(dE.F32[:V*D])
		}
		embedGrad(g.F32, ids.F32[:N], dE.F32, D)
	} else {
		if !acc {
			clear(dE.F64[:V*D])
		}
		embedGrad(g.F64, ids.F64[:N], dE.F64, D)
	}
	return nil
}

func embedGrad[T kern.Float](g, ids, out []T, D int) {
	for n, x := range ids {
		i := int(x)
		kern.Axpy(1, g[n*D:(n+1)*D], out[i*D:(i+1)*D])
	}
}

func (*CPU) Im2Col(out, x backend.Buf, geo backend.ConvGeom, B, C int) error {
	ho, wo := geo.Out()
	R, L := ho*wo*geo.K*geo.K, geo.H*geo.W
	is32, err := checkSizes("Im2Col", []backend.Buf{out, x}, B*R*C, B*L*C)
	if is32 && err == nil {
		im2col(x.F32, out.F32, geo, B, C)
	} else if err == nil {
		im2col(x.F64, out.F64, geo, B, C)
	}
	return err
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
	is32, err := checkSizes("Col2Im", []backend.Buf{out, g}, B*L*C, B*R*C)
	if is32 && err == nil {
		clear(out.F32[:B*L*C])
		col2im(g.F32, out.F32, geo, B, C)
	} else if err == nil {
		clear(out.F64[:B*L*C])
		col2im(g.F64, out.F64, geo, B, C)
	}
	return err
}

// col2im adds row r of g to channel vector src(r) of out, per image, in
// ascending r.
func col2im[T kern.Float](g, out []T, geo backend.ConvGeom, B, C int) {
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

// checkSizes is check with its own size for each buffer.
func checkSizes(name string, bs []backend.Buf, ns ...int) (is32 bool, err error) {
	if is32, err = check(name, 0, bs...); err != nil {
		return false, err
	}
	for i, b := range bs {
		if b.Len() < ns[i] {
			return false, fmt.Errorf("backend: cpu: %s: buffer %d holds %d values, the kernel needs %d", name, i, b.Len(), ns[i])
		}
	}
	return is32, nil
}
