// Package kern is the engine's lowest layer: kernels on plain slices, with
// no graph state — the float32 elementwise loops (eight lanes at a time in
// AVX assembly where the processor has it, bit for bit the Go loops they
// replace; tanh and σ as a rational approximation within 4e-7), the fused
// GRU row kernels, Adam, and the pure-Go SGEMM (a 4×16 register-blocked
// AVX kernel, split into row bands over goroutines with SetThreads). The
// graph's ops (package gx) compute through them on the cpu; the OpenCL
// device's kernels are in internal/device/kernels.
package kern
