package cpu

import (
	"fmt"

	"github.com/attnzoo/attnzoo/internal/backend"
)

func (*CPU) Copy2D(dst backend.Buf, dOff, dLd int, src backend.Buf, sOff, sLd, rows, cols int) error {
	if rows*cols == 0 {
		return nil
	}
	is32, err := check("Copy2D", 0, dst, src)
	if err != nil {
		return err
	}
	if rows == 1 {
		dLd, sLd = cols, cols
	}
	if dOff < 0 || sOff < 0 || dLd < cols || sLd < cols || dOff+(rows-1)*dLd+cols > dst.Len() || sOff+(rows-1)*sLd+cols > src.Len() {
		return fmt.Errorf("backend: cpu: Copy2D: %d×%d block from %d (ld %d) of %d values to %d (ld %d) of %d",
			rows, cols, sOff, sLd, src.Len(), dOff, dLd, dst.Len())
	}
	return typed(is32, nil, func() { copy2D(dst.F32, dOff, dLd, src.F32, sOff, sLd, rows, cols) },
		func() { copy2D(dst.F64, dOff, dLd, src.F64, sOff, sLd, rows, cols) })
}

func copy2D[T float32 | float64](dst []T, dOff, dLd int, src []T, sOff, sLd, rows, cols int) {
	for r := range rows {
		copy(dst[dOff+r*dLd:dOff+r*dLd+cols], src[sOff+r*sLd:sOff+r*sLd+cols])
	}
}

// Stack is Copy2D of each block in turn.
func (c *CPU) Stack(dst backend.Buf, xs []backend.Buf, n int) error {
	for t, x := range xs {
		if err := c.Copy2D(dst, t*n, n, x, 0, n, 1, n); err != nil {
			return err
		}
	}
	return nil
}

// Fuses declares the fused ops the cpu runs (backend.Fuser): the stacked
// weight gradients, one product on the stacked positions being faster than
// a product a position; the attention of a decoder position, one head or
// several (FusedAttention), summed in its unfused kernels' order; and
// StackRows' gradient as views (no copy).
func (*CPU) Fuses(op string) bool {
	switch op {
	case backend.FuseStackedGrads, backend.FuseAttention, backend.FuseAttentionHeads, backend.FuseUnstack:
		return true
	}
	return false
}
