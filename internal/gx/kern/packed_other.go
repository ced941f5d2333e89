//go:build !amd64

package kern

// kernels lists the micro-kernels this processor runs: the Go one.
func kernels() []*packKernel { return []*packKernel{kernGo} }
