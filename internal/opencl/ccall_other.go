//go:build !(amd64 && (linux || freebsd || netbsd || darwin))

package opencl

import "unsafe"

// On other machines CLBlast's SGEMM goes through purego's RegisterFunc,
// which allocates a value per argument (ccall_amd64.go says why amd64
// does not).

func (b *clblastAPI) sgemm(layout, ta, tb int32, m, n, k uintptr, alpha float32,
	a, aOff, lda, bm, bOff, ldb uintptr, beta float32, c, cOff, ldc uintptr, q *uintptr) int32 {
	return b.Sgemm(layout, ta, tb, m, n, k, alpha, a, aOff, lda, bm, bOff, ldb, beta, c, cOff, ldc, q, unsafe.Pointer(nil))
}
