// Package device is the seam between the engine's ops and the hardware
// that computes them: a device allocates float32 buffers in its own memory
// and runs a small set of kernels on them. The cpu device (CPU) computes on
// Go slices; the OpenCL device (OpenCL) on device buffers, with kernels in
// OpenCL C (kernels/*.cl, embedded) and matrix products through CLBlast.
// Both implement Kernels, so an op written against Kernels runs on either,
// and the OpenCL device is tested against the cpu device.
//
// The kernels, on row-major float32 data (n values, or rows × cols):
//
//	Sgemm:          C = α·op(A)·op(B) + β·C,  op(X) = X or Xᵀ
//	Add, Mul:       y = a + b,  y = a ⊙ b     (∂a = g, ∂b = g;  ∂a = g ⊙ b, ∂b = g ⊙ a: Mul again)
//	Tanh:           y = tanh x                ∂x = g ⊙ (1 − y²)      (TanhGrad)
//	Sigmoid:        y = 1/(1 + e^−x)          ∂x = g ⊙ y ⊙ (1 − y)   (SigmoidGrad)
//	MaskedSoftmax:  y_i = m_i·e^(x_i − M) / Σ_j m_j·e^(x_j − M),  M = max{x_j : m_j = 1}
//	                per row; a masked key (m_i = 0) gets exactly 0, a row
//	                with no key all zeros
//	SoftmaxGrad:    ∂x_i = y_i·(g_i − Σ_j y_j·g_j)  per row (masked keys get 0: y_i = 0)
//
// Masks are float32, 1 = present, 0 = padding (> 0.5 counts as present).
// Each kernel may read and write the same buffer (y = x): every output
// value depends only on inputs at its own index or row.
//
// The graph engine (internal/gx) runs its ops through a device's kernels,
// so a run trains on the cpu or on an OpenCL device alike.
package device

// Buffer is float32 memory on a device. A buffer belongs to the device
// that allocated it and is only passed to that device's kernels.
type Buffer interface {
	Len() int // float32 values
}

// Kernels is a device: its memory and the kernels every op computes through.
// Sizes (n, rows·cols, the matrices' extents) must fit the buffers given;
// a kernel on a device with a queue may return before it has run: Read
// waits for everything queued before it.
type Kernels interface {
	// Name names the device: "cpu", or "opencl:P:D (NAME)".
	Name() string

	// Alloc returns a buffer of n ≥ 1 float32 values, zeroed or not.
	Alloc(n int) (Buffer, error)
	// Write copies src into b (len(src) == b.Len()).
	Write(b Buffer, src []float32) error
	// Read copies b into dst (len(dst) == b.Len()).
	Read(dst []float32, b Buffer) error
	// Free releases b.
	Free(b Buffer) error

	// Sgemm is C = α·op(A)·op(B) + β·C on row-major matrices with leading
	// dimensions lda, ldb, ldc; op(A) is m×k, op(B) k×n, m, n, k ≥ 1.
	Sgemm(transA, transB bool, m, n, k int, alpha float32, a Buffer, lda int, b Buffer, ldb int, beta float32, c Buffer, ldc int) error

	Add(y, a, b Buffer, n int) error
	Mul(y, a, b Buffer, n int) error
	Tanh(y, x Buffer, n int) error
	Sigmoid(y, x Buffer, n int) error
	// TanhGrad is dx = g ⊙ (1 − y²) from tanh's output y.
	TanhGrad(dx, y, g Buffer, n int) error
	// SigmoidGrad is dx = g ⊙ y ⊙ (1 − y) from the sigmoid's output y.
	SigmoidGrad(dx, y, g Buffer, n int) error

	// MaskedSoftmax normalises each of rows rows of x over the keys its
	// mask row keeps.
	MaskedSoftmax(y, x, mask Buffer, rows, cols int) error
	// SoftmaxGrad is the masked softmax's gradient from its output y.
	SoftmaxGrad(dx, y, g Buffer, rows, cols int) error
}
