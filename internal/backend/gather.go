package backend

import "fmt"

// Gather is the family of row gathers and their scatter-adds: embedding
// lookups and im2col. Ids are whole numbers in the buffer's dtype.
type Gather interface {
	// Embed sets out[n, :] = E[ids[n], :] for E [V, D] and ids [N]. An id
	// that is not a whole number in [0, V) is an error on a host backend
	// (it names the id and its position) and a row of NaN on a device.
	Embed(out, E, ids Buf, V, D, N int) error
	// EmbedGrad sets dE [V, D] to Σ_{n: ids[n] = v} g[n, :] per row v (0
	// for an id that is absent), the terms added in ascending n. The ids
	// are Embed's, in [0, V). With acc it adds the sums into dE (the rows
	// of absent ids unchanged).
	EmbedGrad(dE, g, ids Buf, V, D, N int, acc bool) error
	// Im2Col gathers every neighbourhood of x [B, H·W, C] (see ConvGeom)
	// into a row of out [B, Ho·Wo, K·K·C]:
	//	out[b, (o, ky, kx), c] = x[b, src(o, ky, kx), c], 0 outside the image
	Im2Col(out, x Buf, geo ConvGeom, B, C int) error
	// Col2Im is Im2Col's gradient, g [B, Ho·Wo, K·K·C] scattered back:
	//	out[b, i, c] = Σ_{(o, ky, kx): src = i} g[b, (o, ky, kx), c]
	// the terms added in ascending (o, ky, kx).
	Col2Im(out, g Buf, geo ConvGeom, B, C int) error
}

// ConvGeom is the geometry of a 2-D convolution over an H×W grid (row-major
// positions): a K×K kernel, Stride and zero padding Pad on every side. The
// neighbourhood of output position o = (oy, ox) has its top-left corner at
// (oy·Stride − Pad, ox·Stride − Pad); its entry (ky, kx) reads position
// src(o, ky, kx) = y·W + x, (y, x) = (oy·Stride − Pad + ky, ox·Stride − Pad
// + kx), or none where that leaves the image.
type ConvGeom struct{ H, W, K, Stride, Pad int }

// Out is the output grid, Ho×Wo: Ho = ⌊(H + 2·Pad − K)/Stride⌋ + 1, Wo likewise.
func (c ConvGeom) Out() (ho, wo int) {
	return (c.H+2*c.Pad-c.K)/c.Stride + 1, (c.W+2*c.Pad-c.K)/c.Stride + 1
}

func (c ConvGeom) String() string {
	return fmt.Sprintf("%dx%d k%d s%d p%d", c.H, c.W, c.K, c.Stride, c.Pad)
}
