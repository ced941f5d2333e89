package device

import (
	"fmt"

	"github.com/attnzoo/attnzoo/internal/backend"
)

// The OpenCL device is a backend.Backend: the typed methods the engine's
// ops compute through, each bound here to its kernel of kernels/*.cl (or
// CLBlast) and its arguments' order, in one place.

// Backend is the device as a backend.Backend.
func (o *OpenCL) Backend() backend.Backend { return o }

var (
	_ backend.Backend = (*OpenCL)(nil)
	_ Counter         = (*OpenCL)(nil) // attnzoo bench counts through the backend
)

func (*OpenCL) Host() bool { return false }

// NewRun does nothing: the OpenCL backend prepares no weights.
func (*OpenCL) NewRun() {}

// need is a buffer a kernel takes, named, and the values it reads or
// writes of it.
type need struct {
	name string
	b    backend.Buf
	n    int
}

// sizes checks that each buffer is a device buffer of the values it
// needs (Kernel checks its arguments' kinds itself: devArgs).
func sizes(kernel string, bs ...need) error {
	for _, x := range bs {
		switch {
		case x.b.Mem == nil:
			return fmt.Errorf("device: opencl: %s: %s is a host buffer", kernel, x.name)
		case x.b.Len() < x.n:
			return fmt.Errorf("device: opencl: %s: %s holds %d values, want %d", kernel, x.name, x.b.Len(), x.n)
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

func (o *OpenCL) Map(f backend.Fn, y, x backend.Buf, n int) error {
	return o.launch(mapKernels[f][0], n, y, x)
}

func (o *OpenCL) MapGrad(f backend.Fn, dx, y, g backend.Buf, n int) error {
	return o.launch(mapKernels[f][1], n, dx, y, g)
}

func (o *OpenCL) Add(y, x1, x2 backend.Buf, n int) error { return o.launch("add", n, y, x1, x2) }
func (o *OpenCL) Mul(y, x1, x2 backend.Buf, n int) error { return o.launch("mul", n, y, x1, x2) }

func (o *OpenCL) Sub(y, x1, x2 backend.Buf, n int) error {
	return o.Kernel("sub", n, y, x1, x2, n)
}

func (o *OpenCL) Scale(y, x backend.Buf, alpha float64, n int) error {
	return o.Kernel("scale", n, y, x, float32(alpha), n)
}

func (o *OpenCL) Gemm(m, n, k int, alpha float64, a, bm backend.Mat, beta float64, c backend.Mat) error {
	return o.SgemmAt(a.T, bm.T, m, n, k, float32(alpha), a.Buf.Mem, a.Off, a.Ld, bm.Buf.Mem, bm.Off, bm.Ld,
		float32(beta), c.Buf.Mem, c.Off, c.Ld)
}

func (o *OpenCL) Fill(y backend.Buf, v float64, n int) error {
	return o.Kernel("fill", n, y, float32(v), n)
}

func (o *OpenCL) DropoutMask(y backend.Buf, seed uint64, p float64, n int) error {
	return o.Kernel("dropout_mask", n, y, uint32(seed), uint32(seed>>32), float32(p), n)
}
