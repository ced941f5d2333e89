//go:build !amd64

package kern

// kernels lists the micro-kernels this processor runs: the Go one.
func kernels() []*packKernel { return []*packKernel{kernGo} }

// micro runs kn: C[mr×nr] = (C if load, else 0) + A[mr×kk] · panel, A's
// row i at step l at a[i·rs + l·ks].
func micro(kn *packKernel, kk int, a []float32, rs, ks int, panel, c []float32, ldc int, load bool) {
	microGo(kn.mr, kn.nr, kk, a, rs, ks, panel, c, ldc, load)
}
