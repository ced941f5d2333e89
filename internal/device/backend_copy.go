package device

import (
	"fmt"

	"github.com/attnzoo/attnzoo/internal/backend"
)

func (b clBackend) Copy2D(dst backend.Buf, dOff, dLd int, src backend.Buf, sOff, sLd, rows, cols int) error {
	if rows*cols == 0 {
		return nil
	}
	if err := mems("Copy2D", dst, src); err != nil {
		return err
	}
	return b.o.Kernel("copy2d", rows*cols, dst.Mem, dOff, dLd, src.Mem, sOff, sLd, rows, cols)
}

// stackWidth is how many blocks one launch of stack8 copies.
const stackWidth = 8

// Stack copies up to stackWidth blocks a launch (stack8, its unused block
// arguments the first block again): the decoder stacks a state per
// position, 13 at the anchor, in 2 launches instead of 13.
func (b clBackend) Stack(dst backend.Buf, xs []backend.Buf, n int) error {
	return b.StackAt(dst, 0, xs, n)
}

// StackAt is Stack from value off of dst on: dst[off + t·n + i] = xs[t][i]
// (gx stacks a chain's operands a block of stackWidth at a time).
func (b clBackend) StackAt(dst backend.Buf, off int, xs []backend.Buf, n int) error {
	if n == 0 || len(xs) == 0 {
		return nil
	}
	if err := mems("Stack", dst); err != nil {
		return err
	}
	if err := mems("Stack", xs...); err != nil {
		return err
	}
	if off < 0 || dst.Len() < off+len(xs)*n {
		return fmt.Errorf("device: opencl: Stack: %d blocks of %d values at %d into a buffer of %d", len(xs), n, off, dst.Len())
	}
	for t0 := 0; t0 < len(xs); t0 += stackWidth {
		group := xs[t0:min(len(xs), t0+stackWidth)]
		var args [4 + stackWidth]any
		args[0], args[1] = dst.Mem, off+t0*n
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
		if err := b.o.Kernel("stack8", len(group)*n, args[:]...); err != nil {
			return err
		}
	}
	return nil
}
