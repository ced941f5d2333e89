package device

import (
	"fmt"

	"github.com/attnzoo/attnzoo/internal/backend"
)

// fits checks that each buffer holds at least n values.
func fits(kernel string, n int, bs ...backend.Buf) error {
	if n < 1 {
		return fmt.Errorf("device: %s: size %d (want ≥ 1)", kernel, n)
	}
	for i, b := range bs {
		if b.Mem == nil {
			return fmt.Errorf("device: %s: buffer %d is a host buffer", kernel, i)
		}
		if b.Len() < n {
			return fmt.Errorf("device: %s: buffer %d holds %d values, the kernel needs %d", kernel, i, b.Len(), n)
		}
	}
	return nil
}

// fitsRows checks a rows × cols kernel's buffers.
func fitsRows(kernel string, rows, cols int, bs ...backend.Buf) error {
	if rows < 1 || cols < 1 {
		return fmt.Errorf("device: %s: %d rows × %d columns (want ≥ 1 each)", kernel, rows, cols)
	}
	return fits(kernel, rows*cols, bs...)
}
