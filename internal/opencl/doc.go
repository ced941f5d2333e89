// Package opencl calls OpenCL 1.2 and CLBlast at run time: libOpenCL.so.1
// (the ICD loader, which finds the vendor drivers listed in
// /etc/OpenCL/vendors) and libclblast.so.1 are opened with dlopen through
// github.com/ebitengine/purego, so the package needs no cgo and no headers
// to build, and a binary built without them still reports plainly what to
// install when it is asked for a device.
//
// The package is a thin, safe layer over the C API: platforms and devices
// (Platforms), a context with one in-order command queue on one device
// (NewContext), float32 buffers (Context.Alloc, Write, Read), programs built
// from OpenCL C source with the build log in the error (Context.Build),
// kernel launches over any global size (Kernel.Launch1D: the kernels guard
// with `if (gid >= n) return;`) and CLBlast's SGEMM (Context.Sgemm). Every
// OpenCL error becomes an *Error that names its code (CL_INVALID_VALUE, …).
// A launch and a CLBlast call allocate nothing on the host (launch.go,
// ccall_amd64.go), and a Kernel sets only the arguments that changed since
// its last launch.
//
// It knows nothing of graphs or gorgonia; internal/device builds the
// kernels of the engine's device seam on it.
package opencl
