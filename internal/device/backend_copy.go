package device

import (
	"fmt"

	"github.com/attnzoo/attnzoo/internal/backend"
)

func (o *OpenCL) Copy2D(dst backend.Buf, dOff, dLd int, src backend.Buf, sOff, sLd, rows, cols int) error {
	if rows*cols == 0 {
		return nil
	}
	return o.Kernel("copy2d", rows*cols, dst, dOff, dLd, src, sOff, sLd, rows, cols)
}

// stackWidth is how many blocks one launch of stack8 copies.
const stackWidth = 8

// Stack copies up to stackWidth blocks a launch (stack8, its unused block
// arguments the first block again): the decoder stacks a state per
// position, 13 at the anchor, in 2 launches instead of 13.
func (o *OpenCL) Stack(dst backend.Buf, xs []backend.Buf, n int) error {
	if n == 0 || len(xs) == 0 {
		return nil
	}
	if dst.Len() < len(xs)*n {
		return fmt.Errorf("device: opencl: Stack: %d blocks of %d values into a buffer of %d", len(xs), n, dst.Len())
	}
	for t0 := 0; t0 < len(xs); t0 += stackWidth {
		group := xs[t0:min(len(xs), t0+stackWidth)]
		var args [4 + stackWidth]any
		args[0], args[1] = dst.Mem, t0*n
		for j := range stackWidth {
			x := group[0]
			if j < len(group) {
				x = group[j]
			}
			if x.Len() < n {
				return fmt.Errorf("device: opencl: Stack: block %d holds %d values, want %d", t0+j, x.Len(), n)
			}
			args[2+j] = x.Mem
		}
		args[2+stackWidth], args[3+stackWidth] = len(group), n
		if err := o.Kernel("stack8", len(group)*n, args[:]...); err != nil {
			return err
		}
	}
	return nil
}
