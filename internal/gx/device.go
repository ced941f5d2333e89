package gx

import (
	"github.com/attnzoo/attnzoo/internal/device"
	"gorgonia.org/tensor"
)

// kernelRunner is the ability of a device to run the engine's own kernels
// (internal/device/kernels/*.cl) by name, and matrix products at offsets:
// the OpenCL device has it. An op's onDevice asserts it and returns nil
// (run on the host) on a device without it.
type kernelRunner interface {
	device.Kernels
	// Kernel runs a kernel over global work-items with its arguments in
	// order (device Buffers, int, int32, uint32, float32).
	Kernel(name string, global int, args ...any) error
	// KernelRows runs a kernel with one work-group of GroupSize items per row.
	KernelRows(name string, rows int, args ...any) error
	GroupSize() int
	SgemmAt(transA, transB bool, m, n, k int, alpha float32, a device.Buffer, aOff, lda int, b device.Buffer, bOff, ldb int,
		beta float32, c device.Buffer, cOff, ldc int) error
	SgemmBatched(transA, transB bool, m, n, k int, alpha float32, a device.Buffer, aOff, lda, aStride int,
		b device.Buffer, bOff, ldb, bStride int, beta float32, c device.Buffer, cOff, ldc, cStride int, batch int) error
}

var _ kernelRunner = (*device.OpenCL)(nil)

// runner is d's kernelRunner, or nil.
func runner(d device.Kernels) kernelRunner {
	k, _ := d.(kernelRunner)
	return k
}

// size is the number of values of a shape (1 for a scalar).
func size(s tensor.Shape) int { return max(1, s.TotalSize()) }

// oneKernel is the device computation of most ops: one launch of a kernel
// over n work-items (rows, one work-group each, when rows is true) with the
// arguments (out, the op's operands in order, extra…); nil on a device
// without the engine's kernels.
func oneKernel(d device.Kernels, name string, n int, rows bool, extra ...any) deviceFn {
	k := runner(d)
	if k == nil {
		return nil
	}
	var args []any
	return func(out device.Buffer, a []device.Buffer) error {
		args = append(args[:0], out)
		for _, b := range a {
			args = append(args, b)
		}
		args = append(args, extra...)
		if rows {
			return k.KernelRows(name, n, args...)
		}
		return k.Kernel(name, n, args...)
	}
}
