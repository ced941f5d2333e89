package device

import (
	"fmt"

	"github.com/attnzoo/attnzoo/internal/backend"
)

// Backend is the OpenCL device as a backend.Backend: the typed methods the
// engine's ops compute through, each bound here to its kernel of
// kernels/*.cl (or CLBlast) and its arguments' order, in one place.
func (o *OpenCL) Backend() backend.Backend { return clBackend{o} }

type clBackend struct{ o *OpenCL }

var (
	_ backend.Backend = clBackend{}
	_ Counter         = clBackend{} // attnzoo bench counts through the backend
)

func (b clBackend) Name() string { return b.o.Name() }
func (clBackend) Host() bool     { return false }
func (b clBackend) Close() error { return b.o.Close() }

// NewRun does nothing: the OpenCL backend prepares no weights.
func (clBackend) NewRun() {}

// Traffic is the device's (Counter): a caller holding only the backend
// (backend.OpenSpec's) counts through it.
func (b clBackend) Traffic() Traffic { return b.o.Traffic() }

// mems checks that bufs are device buffers (Kernel checks its arguments
// itself: devArgs).
func mems(name string, bs ...backend.Buf) error {
	for i, x := range bs {
		if x.Mem == nil {
			return fmt.Errorf("device: opencl: %s: buffer %d is a host buffer", name, i)
		}
	}
	return nil
}

// mapKernels are Map's kernels and MapGrad's, by function.
var mapKernels = [...][2]string{
	backend.Tanh:    {"tanh_fwd", "tanh_grad"},
	backend.Sigmoid: {"sigmoid_fwd", "sigmoid_grad"},
	backend.ReLU:    {"relu_fwd", "relu_grad"},
}

func (b clBackend) Map(f backend.Fn, y, x backend.Buf, n int) error {
	return b.o.launch(mapKernels[f][0], n, y, x)
}

func (b clBackend) MapGrad(f backend.Fn, dx, y, g backend.Buf, n int) error {
	return b.o.launch(mapKernels[f][1], n, dx, y, g)
}

func (b clBackend) Add(y, x1, x2 backend.Buf, n int) error { return b.o.launch("add", n, y, x1, x2) }
func (b clBackend) Mul(y, x1, x2 backend.Buf, n int) error { return b.o.launch("mul", n, y, x1, x2) }

func (b clBackend) Sub(y, x1, x2 backend.Buf, n int) error {
	return b.o.Kernel("sub", n, y, x1, x2, n)
}

func (b clBackend) Scale(y, x backend.Buf, alpha float64, n int) error {
	return b.o.Kernel("scale", n, y, x, float32(alpha), n)
}

func (b clBackend) Gemm(m, n, k int, alpha float64, a, bm backend.Mat, beta float64, c backend.Mat) error {
	return b.o.SgemmAt(a.T, bm.T, m, n, k, float32(alpha), a.Buf.Mem, a.Off, a.Ld, bm.Buf.Mem, bm.Off, bm.Ld,
		float32(beta), c.Buf.Mem, c.Off, c.Ld)
}

func (b clBackend) Fill(y backend.Buf, v float64, n int) error {
	return b.o.Kernel("fill", n, y, float32(v), n)
}

func (b clBackend) DropoutMask(y backend.Buf, seed uint64, p float64, n int) error {
	return b.o.Kernel("dropout_mask", n, y, uint32(seed), uint32(seed>>32), float32(p), n)
}
