package device

import "github.com/attnzoo/attnzoo/internal/backend"

// Fuses declares the fused ops the OpenCL backend runs (backend.Fuser):
// the stacked weight gradients, whose stacks it copies eight blocks a
// launch (Stack), so one product on them takes fewer launches than a
// product a position; and one head's attention of a decoder position
// (kernels/attend.cl; several heads get the unfused chain).
func (clBackend) Fuses(op string) bool {
	return op == backend.FuseStackedGrads || op == backend.FuseAttention
}
