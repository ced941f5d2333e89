package device

import (
	"fmt"

	"github.com/attnzoo/attnzoo/internal/backend"
)

// The Attention family on the device: kernels/attention.cl (and seq.cl's
// add_bias), one work-item per output value summing in index order, the
// host's (the column sums, gru.cl's sum_rows_at, in a work-group a tile); the matrix–vector products on CLBlast's SGEMM with one
// column.

func (o *OpenCL) BiasAdd(y, x, bias backend.Buf, rows, n int) error {
	return o.Kernel("add_bias", rows*n, y, x, bias, n, rows*n)
}

// flag is a kernel's int argument for a bool.
func flag(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (o *OpenCL) SumMid(y, x backend.Buf, B, S, n int) error {
	return o.Kernel("sum_mid", B*n, y, x, B, S, n)
}

// MatVec is a kernel of ours, not CLBlast's SGEMM with one column (which
// pads it to a product of 32 columns, in several kernels once large):
// A·x as one work-group per row (a row kernel), Aᵀ·x as one work-item per
// output summing down A's rows in index order.
func (o *OpenCL) MatVec(m, n int, a backend.Mat, x, y backend.Buf, acc bool) error {
	rows, cols := m, n
	if a.T {
		rows, cols = n, m
	}
	if m < 1 || n < 1 || y.Len() < m || x.Len() < n || a.Ld < cols || a.Off < 0 || a.Off+(rows-1)*a.Ld+cols > a.Buf.Len() {
		return fmt.Errorf("device: opencl: MatVec: %d×%d matrix at %d, ld %d, in a buffer of %d; x of %d, y of %d",
			rows, cols, a.Off, a.Ld, a.Buf.Len(), x.Len(), y.Len())
	}
	var beta float32
	if acc {
		beta = 1
	}
	if a.T {
		return o.Kernel("matvec_cols", m, y, a.Buf, x, a.Off, a.Ld, n, beta, m)
	}
	return o.KernelRows("matvec_rows", m, y, a.Buf, x, a.Off, a.Ld, n, beta)
}

func (o *OpenCL) Bmv(y, X, v backend.Buf, B, S, D, h int, c float64) error {
	return o.Kernel("bmv_heads", B*h*S, y, X, v, float32(c), B, S, D, h)
}

func (o *OpenCL) WSum(y, w, X backend.Buf, B, S, D, h int, c float64) error {
	return o.Kernel("wsum_heads", B*D, y, w, X, float32(c), B, S, D, h)
}

func (o *OpenCL) Outer(y, w, v backend.Buf, B, S, D, h int, c float64, acc bool) error {
	name := "outer_heads"
	if acc {
		name = "outer_heads_acc"
	}
	return o.Kernel(name, B*S*D, y, w, v, float32(c), B, S, D, h)
}

func (o *OpenCL) GroupSum(y, x backend.Buf, B, S, h int, c float64) error {
	return o.Kernel("group_sum", B*S, y, x, float32(c), B, S, h)
}

func (o *OpenCL) RepeatRows(y, x backend.Buf, B, S, h int, c float64) error {
	return o.Kernel("repeat_rows", B*h*S, y, x, float32(c), B, S, h)
}

func (o *OpenCL) AddTanh(y, P, u, c backend.Buf, B, S, A int) error {
	return o.Kernel("add_tanh", B*S*A, y, P, u, c, S, A, B*S*A)
}

// AdditiveDeltaSum is SumMid of AdditiveDelta's δ [B,S,A] computed from
// δ's operands, T [B,S,A], v [A], g [B,S], into y [B,A] in one kernel:
// the device machine's ∂u, which leaves δ's buffer free to hold the sum of
// the positions' δ (gx's fuseAdds).
func (o *OpenCL) AdditiveDeltaSum(y, T, v, g backend.Buf, B, S, A int) error {
	return o.Kernel("additive_delta_sum", B*A, y, T, v, g, B, S, A)
}

func (o *OpenCL) AdditiveDelta(y, T, v, g backend.Buf, N, A int, acc bool) error {
	return o.Kernel("additive_delta", N*A, y, T, v, g, A, N*A, flag(acc))
}
