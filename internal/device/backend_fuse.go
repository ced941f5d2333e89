package device

import "github.com/attnzoo/attnzoo/internal/backend"

// Fuses declares the fused ops the OpenCL backend runs (backend.Fuser):
// the stacked weight gradients, whose stacks it copies eight blocks a
// launch (Stack), so one product on them takes fewer launches than a
// product a position; the attention of a decoder position, one head or
// the dot score's several (kernels/attend.cl); and StackRows'
// gradient as views, sub-buffers of the stacked gradient (View).
func (*OpenCL) Fuses(op string) bool {
	return op == backend.FuseStackedGrads || op == backend.FuseAttention || op == backend.FuseAttentionHeads || op == backend.FuseUnstack
}

// ViewAt reports whether a sub-buffer may start at value off: at a
// multiple of the device's CL_DEVICE_MEM_BASE_ADDR_ALIGN (backend.Viewer).
func (o *OpenCL) ViewAt(off int) bool {
	a := int(o.c.Device.BaseAlign)
	return a > 0 && off*4%a == 0
}

// View is values [off, off+n) of x as a sub-buffer.
func (o *OpenCL) View(x backend.Buf, off, n int) (backend.Buf, error) {
	m, err := clBuf("View", 0, x.Mem)
	if err != nil {
		return backend.Buf{}, err
	}
	v, err := m.Sub(off, n)
	if err != nil {
		return backend.Buf{}, err
	}
	return backend.Buf{Mem: v}, nil
}
