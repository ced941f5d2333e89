package device

import (
	"fmt"

	"github.com/attnzoo/attnzoo/internal/backend"
)

// The Attention family on the device: kernels/attention.cl (and seq.cl's
// add_bias), one work-item per output value summing in index order, the
// host's (the column sums, gru.cl's sum_rows_at, in a work-group a tile); the matrix–vector products on CLBlast's SGEMM with one
// column.

func (b clBackend) BiasAdd(y, x, bias backend.Buf, rows, n int) error {
	if err := mems("BiasAdd", y, x, bias); err != nil {
		return err
	}
	return b.o.Kernel("add_bias", rows*n, y.Mem, x.Mem, bias.Mem, n, rows*n)
}

func (b clBackend) SumRows(y, x backend.Buf, rows, n int, acc bool) error {
	if err := mems("SumRows", y, x); err != nil {
		return err
	}
	return b.colSums(y, 0, x, 0, n, rows, n, acc)
}

// colSums runs sum_rows_at (kernels/gru.cl): one work-group per tile of
// min(8, WG) adjacent columns, its work-items splitting the rows, in an
// order fixed by WG (the same sums every run; not the host's sequential
// order, so the last bits may differ from it).
func (b clBackend) colSums(y backend.Buf, yOff int, x backend.Buf, xOff, ld, rows, cols int, acc bool) error {
	if cols < 1 {
		return nil
	}
	ct := min(8, b.o.GroupSize())
	return b.o.KernelRows("sum_rows_at", (cols+ct-1)/ct, y.Mem, yOff, x.Mem, xOff, ld, rows, cols, flag(acc))
}

// flag is a kernel's int argument for a bool.
func flag(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (b clBackend) SumMid(y, x backend.Buf, B, S, n int) error {
	if err := mems("SumMid", y, x); err != nil {
		return err
	}
	return b.o.Kernel("sum_mid", B*n, y.Mem, x.Mem, B, S, n)
}

// MatVec is a kernel of ours, not CLBlast's SGEMM with one column (which
// pads it to a product of 32 columns, in several kernels once large):
// A·x as one work-group per row (a row kernel), Aᵀ·x as one work-item per
// output summing down A's rows in index order.
func (b clBackend) MatVec(m, n int, a backend.Mat, x, y backend.Buf, acc bool) error {
	if err := mems("MatVec", y, x, a.Buf); err != nil {
		return err
	}
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
		return b.o.Kernel("matvec_cols", m, y.Mem, a.Buf.Mem, x.Mem, a.Off, a.Ld, n, beta, m)
	}
	return b.o.KernelRows("matvec_rows", m, y.Mem, a.Buf.Mem, x.Mem, a.Off, a.Ld, n, beta)
}

func (b clBackend) Bmv(y, X, v backend.Buf, B, S, D, h int, c float64) error {
	if err := mems("Bmv", y, X, v); err != nil {
		return err
	}
	return b.o.Kernel("bmv_heads", B*h*S, y.Mem, X.Mem, v.Mem, float32(c), B, S, D, h)
}

func (b clBackend) WSum(y, w, X backend.Buf, B, S, D, h int, c float64) error {
	if err := mems("WSum", y, w, X); err != nil {
		return err
	}
	return b.o.Kernel("wsum_heads", B*D, y.Mem, w.Mem, X.Mem, float32(c), B, S, D, h)
}

func (b clBackend) Outer(y, w, v backend.Buf, B, S, D, h int, c float64, acc bool) error {
	if err := mems("Outer", y, w, v); err != nil {
		return err
	}
	name := "outer_heads"
	if acc {
		name = "outer_heads_acc"
	}
	return b.o.Kernel(name, B*S*D, y.Mem, w.Mem, v.Mem, float32(c), B, S, D, h)
}

func (b clBackend) GroupSum(y, x backend.Buf, B, S, h int, c float64) error {
	if err := mems("GroupSum", y, x); err != nil {
		return err
	}
	return b.o.Kernel("group_sum", B*S, y.Mem, x.Mem, float32(c), B, S, h)
}

func (b clBackend) RepeatRows(y, x backend.Buf, B, S, h int, c float64) error {
	if err := mems("RepeatRows", y, x); err != nil {
		return err
	}
	return b.o.Kernel("repeat_rows", B*h*S, y.Mem, x.Mem, float32(c), B, S, h)
}

func (b clBackend) AddTanh(y, P, u, c backend.Buf, B, S, A int) error {
	if err := mems("AddTanh", y, P, u, c); err != nil {
		return err
	}
	return b.o.Kernel("add_tanh", B*S*A, y.Mem, P.Mem, u.Mem, c.Mem, S, A, B*S*A)
}

// AdditiveDeltaSum is SumMid of AdditiveDelta's δ [B,S,A] computed from
// δ's operands, T [B,S,A], v [A], g [B,S], into y [B,A] in one kernel:
// the device machine's ∂u, which leaves δ's buffer free to hold the sum of
// the positions' δ (gx's fuseAdds).
func (b clBackend) AdditiveDeltaSum(y, T, v, g backend.Buf, B, S, A int) error {
	if err := mems("AdditiveDeltaSum", y, T, v, g); err != nil {
		return err
	}
	return b.o.Kernel("additive_delta_sum", B*A, y.Mem, T.Mem, v.Mem, g.Mem, B, S, A)
}

func (b clBackend) AdditiveDelta(y, T, v, g backend.Buf, N, A int, acc bool) error {
	if err := mems("AdditiveDelta", y, T, v, g); err != nil {
		return err
	}
	return b.o.Kernel("additive_delta", N*A, y.Mem, T.Mem, v.Mem, g.Mem, A, N*A, flag(acc))
}
