// Package device is the OpenCL backend (backend.Backend, registered as
// "opencl"): a context and command queue on one OpenCL device, the
// engine's kernels in OpenCL C (kernels/*.cl, embedded, built when the
// device opens) and matrix products through CLBlast. Its memory is the
// device's buffers (backend.Buf.Mem), written and read through the
// backend's Memory methods and counted in Traffic. It also chooses
// devices (Spec, Resolve: "gpu", "gpu:N", "opencl:P:D").
//
// Each kernel is tested against the cpu backend (internal/backend/cpu) on
// the same inputs, and both against the cpu backend's float64 sums.
package device
