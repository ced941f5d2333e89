package opencl

import (
	"fmt"
	"sync"
)

// clblastMu serialises every CLBlast call in the process: Debian's CLBlast
// 1.5.3 keeps its compiled kernels in a cache that is not safe for threads
// (CLBlast issue #486, fixed in 1.6.1), and two workers' first products on
// their own contexts crashed in it (SIGSEGV or std::bad_alloc inside
// CLBlastSgemm, TestSigkillResumeOpenCL under load). A call only queues its
// work (once compiled), so the lock is held for microseconds; the first
// call on a context compiles under it, so first uses are serialised too
// (experiments' TestSweepWorkersOpenCL), and CLBlastClearCache
// (Context.Close) takes it as well.
var clblastMu sync.Mutex

// CLBlast's layout and transpose enums (clblast_c.h).
const (
	clblastColMajor = 102
	clblastNoTrans  = 111
	clblastTrans    = 112
)

// Our matrices are row-major; CLBlast is asked for the same product in
// column-major terms, C ᵀ = op(B)ᵀ·op(A)ᵀ, a row-major matrix being its
// transpose in column-major: B's buffer as the first operand (with B's
// flag), A's as the second (with A's), m and n swapped. The arithmetic is
// the same; CLBlast's indirect GEMM (the large products) wants C in
// column-major order, so a row-major call always copies C into a
// transposed temporary and back (CLBlast's Xgemm::ProcessArguments:
// c_rotated for kRowMajor), two kernels a product the column-major call
// does not launch when C's sizes fit its tiles.

func transpose(t bool) int32 {
	if t {
		return clblastTrans
	}
	return clblastNoTrans
}

// Sgemm computes, through CLBlast, on row-major matrices stored in buffers
// from the given offsets (in values) with leading dimensions lda, ldb, ldc:
//
//	C = α·op(A)·op(B) + β·C,  op(X) = Xᵀ if its trans flag is set,
//
// op(A) m×k, op(B) k×n, C m×n, m, n, k ≥ 1. It returns once the work is
// queued. The first call on a device compiles CLBlast's kernels (seconds
// on pocl with a cold cache; POCL_CACHE_DIR keeps them).
func (c *Context) Sgemm(transA, transB bool, m, n, k int, alpha float32, a *Buffer, aOff, lda int,
	b *Buffer, bOff, ldb int, beta float32, cb *Buffer, cOff, ldc int) error {
	bl, err := loadCLBlast()
	if err != nil {
		return err
	}
	if m < 1 || n < 1 || k < 1 {
		return fmt.Errorf("opencl: Sgemm: m, n, k = %d, %d, %d: each must be ≥ 1", m, n, k)
	}
	if err := usable(a, b, cb); err != nil {
		return fmt.Errorf("opencl: Sgemm: %w", err)
	}
	clblastMu.Lock()
	defer clblastMu.Unlock()
	c.blas = true
	code := bl.sgemm(clblastColMajor, transpose(transB), transpose(transA), uintptr(n), uintptr(m), uintptr(k), alpha,
		b.mem, uintptr(bOff), uintptr(ldb), a.mem, uintptr(aOff), uintptr(lda), beta,
		cb.mem, uintptr(cOff), uintptr(ldc), &c.queue)
	if err := check("CLBlastSgemm", ourAB(code)); err != nil {
		return c.explain(fmt.Errorf("%w (m=%d n=%d k=%d lda=%d ldb=%d ldc=%d)", err, m, n, k, lda, ldb, ldc))
	}
	return nil
}

// clearCLBlastCache drops CLBlast's compiled programs (of every context),
// under clblastMu like every CLBlast call.
func clearCLBlastCache() error {
	bl, err := loadCLBlast()
	if err != nil {
		return err
	}
	clblastMu.Lock()
	defer clblastMu.Unlock()
	return check("CLBlastClearCache", bl.ClearCache())
}

// ourAB names CLBlast's status for our operands: its A is our B and its B
// our A (the column-major call), so a code about one is about the other.
func ourAB(code int32) int32 {
	for _, p := range [][2]int32{{-1022, -1021}, {-1016, -1015}, {-1011, -1010}} { // InvalidMatrix, InvalidLeadDim, InsufficientMemory
		switch code {
		case p[0]:
			return p[1]
		case p[1]:
			return p[0]
		}
	}
	return code
}

// usable checks that no buffer is nil or released.
func usable(bs ...*Buffer) error {
	for i, b := range bs {
		if b == nil || b.mem == 0 {
			return fmt.Errorf("matrix %c is a nil or released buffer", "ABC"[i])
		}
	}
	return nil
}
