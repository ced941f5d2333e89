package device

import "github.com/attnzoo/attnzoo/internal/backend"

// The Rows family (backend/rows.go has the equations): one work-group per
// row (kernels/softmax.cl, xent.cl, norm.cl), each row's maximum and sums
// from work-group reductions.
//
// Target ids are read as the host reads them (truncated: kernels/seq.cl,
// token_id). A target out of [0, V) in a row of nonzero weight makes the
// loss NaN, which the trainer refuses (the host backend returns an error;
// backend_gather.go says why none arrives from seq2seq).

func (o *OpenCL) MaskedSoftmax(y, x, mask backend.Buf, rows, cols int) error {
	return o.launchRows("masked_softmax", rows, cols, y, x, mask)
}

func (o *OpenCL) SoftmaxGrad(dx, y, g backend.Buf, rows, cols int) error {
	return o.launchRows("softmax_grad", rows, cols, dx, y, g)
}

func (o *OpenCL) MaskFill(y, x, mask backend.Buf, v float64, n int) error {
	return o.Kernel("mask_fill", n, y, x, mask, float32(v), n)
}

func (o *OpenCL) LogSoftmax(y, z backend.Buf, rows, cols int) error {
	return o.KernelRows("log_softmax_rows", rows, y, z, rows, cols)
}

// SoftmaxXent: each row's loss, then their sum scaled, by one work-group.
// Without ε (eps holds no values) the kernels get m in its place and
// smooth = 0, and never read it.
func (o *OpenCL) SoftmaxXent(out, loss, z, t, m, eps backend.Buf, c float64, rows, cols int) error {
	e, smooth := smoothing(m, eps)
	if err := o.KernelRows("xent_rows", rows, loss, z, t, m, e, smooth, rows, cols); err != nil {
		return err
	}
	return o.KernelRows("sum_scaled", 1, out, loss, float32(c), rows)
}

func (o *OpenCL) SoftmaxXentGrad(dz, z, t, m, eps, g backend.Buf, c float64, rows, cols int) error {
	e, smooth := smoothing(m, eps)
	return o.KernelRows("xent_grad", rows, dz, z, t, m, e, smooth, g, float32(c), rows, cols)
}

// smoothing is the ε buffer the xent kernels read and whether they read
// it (1) or not (0: m stands in for it).
func smoothing(m, eps backend.Buf) (backend.Buf, int32) {
	if eps.Mem == nil && eps.Len() == 0 {
		return m, 0
	}
	return eps, 1
}

func (o *OpenCL) Argmax(out, x backend.Buf, rows, cols int) error {
	return o.KernelRows("argmax_rows", rows, out, x, rows, cols)
}

func (o *OpenCL) L2Norm(y, x backend.Buf, eps float64, rows, cols int) error {
	return o.KernelRows("l2_norm", rows, y, x, float32(eps), rows, cols)
}

func (o *OpenCL) L2Grad(dx, x, g backend.Buf, eps float64, rows, cols int) error {
	return o.KernelRows("l2_grad", rows, dx, x, g, float32(eps), rows, cols)
}

func (o *OpenCL) ScaleBy(y, x, gamma backend.Buf, n int) error {
	return o.Kernel("scale_by", n, y, x, gamma, n)
}

// Dot: one work-group's sum.
func (o *OpenCL) Dot(out, x, y backend.Buf, n int) error {
	return o.KernelRows("dot_all", 1, out, x, y, n)
}
