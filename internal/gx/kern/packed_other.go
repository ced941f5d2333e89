//go:build !amd64

package kern

// kernels lists the micro-kernels this processor runs: the Go one.
func kernels() []*packKernel { return []*packKernel{kernGo} }

// micro runs kn: C[mr×nr] = (C if load, else 0) + strip · panel.
func micro(kn *packKernel, kk int, strip, panel, c []float32, ldc int, load bool) {
	microGo(kn.mr, kn.nr, kk, strip, panel, c, ldc, load)
}
