//go:build !amd64

package kern

// kernels lists the micro-kernels this processor runs: the Go one.
func kernels() []*packKernel { return []*packKernel{kernGo} }

// micro runs kn: C[mr×nr] = (C if load, else 0) + A[mr×kk] · B[kk×nr], A's
// row i at step l at a[i·rs + l·ks], B's row l at panel[l·ps].
func micro(kn *packKernel, kk int, a []float32, rs, ks int, panel []float32, ps int, c []float32, ldc int, load bool) {
	microGo(kn.mr, kn.nr, kk, a, rs, ks, panel, ps, c, ldc, load)
}
