//go:build amd64 && (linux || freebsd || netbsd || darwin)

package opencl

import (
	"math"
	"unsafe"
)

// A C call without purego's reflection, for CLBlast's SGEMM: purego's
// RegisterFunc allocates a value per argument (19 of them), and
// purego.SyscallN, which allocates nothing, passes every argument as an
// integer and a float at once (its floats are a copy of its integers), so
// it cannot pass α and β. cframe holds the call as the amd64 System V ABI
// makes it, and callC (ccall_amd64.s) makes it on the system stack
// through runtime.cgocall, as purego's own trampoline does.

// cframe is one C call: the integer arguments in the order of the six
// registers and then the stack, the float arguments in xmm0 and xmm1.
type cframe struct {
	fn    uintptr
	i     [6]uintptr  // rdi, rsi, rdx, rcx, r8, r9
	f     [2]uint64   // xmm0, xmm1: a float32's bits in the low half
	stack [16]uintptr // the further integer arguments, in order
	ret   uintptr     // rax after the call
	ni    int
	nf    int
	ns    int
}

// word adds an integer or pointer argument.
func (f *cframe) word(v uintptr) {
	if f.ni < len(f.i) {
		f.i[f.ni], f.ni = v, f.ni+1
		return
	}
	f.stack[f.ns], f.ns = v, f.ns+1
}

// float adds a float argument (at most two).
func (f *cframe) float(v float32) { f.f[f.nf], f.nf = uint64(math.Float32bits(v)), f.nf+1 }

// call calls the C function at fn with the arguments added and clears the
// frame. f must not be on a goroutine's stack (it may move): the callers'
// frame is a package variable.
func (f *cframe) call(fn uintptr) uintptr {
	f.fn = fn
	runtime_cgocall(callCABI0, unsafe.Pointer(f))
	r := f.ret
	*f = cframe{}
	return r
}

// callCABI0 is callC's address (ccall_amd64.s).
var callCABI0 uintptr

//go:linkname runtime_cgocall runtime.cgocall
func runtime_cgocall(fn uintptr, arg unsafe.Pointer) int32

// blasFrame is the frame of every CLBlast call, which clblastMu serialises.
var blasFrame cframe

// sgemm calls CLBlastSgemm (lib.go lists its arguments); clblastMu is held.
func (b *clblastAPI) sgemm(layout, ta, tb int32, m, n, k uintptr, alpha float32,
	a, aOff, lda, bm, bOff, ldb uintptr, beta float32, c, cOff, ldc uintptr, q *uintptr) int32 {
	f := &blasFrame
	for _, w := range [...]uintptr{uintptr(layout), uintptr(ta), uintptr(tb), m, n, k, a, aOff, lda, bm, bOff, ldb, c, cOff, ldc,
		uintptr(unsafe.Pointer(q)), 0} {
		f.word(w)
	}
	f.float(alpha)
	f.float(beta)
	return int32(f.call(b.SgemmFn))
}
