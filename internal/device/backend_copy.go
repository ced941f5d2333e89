package device

import "github.com/attnzoo/attnzoo/internal/backend"

func (b clBackend) Copy2D(dst backend.Buf, dOff, dLd int, src backend.Buf, sOff, sLd, rows, cols int) error {
	if rows*cols == 0 {
		return nil
	}
	if err := mems("Copy2D", dst, src); err != nil {
		return err
	}
	return b.o.Kernel("copy2d", rows*cols, dst.Mem, dOff, dLd, src.Mem, sOff, sLd, rows, cols)
}
