//go:build amd64 && (linux || freebsd || netbsd || darwin)

#include "textflag.h"
#include "go_asm.h"

// callCABI0 holds the address of opencl_callC, for runtime.cgocall.
GLOBL ·callCABI0(SB), NOPTR|RODATA, $8
DATA ·callCABI0(SB)/8, $opencl_callC(SB)

// opencl_callC makes the C call a cframe describes (ccall_amd64.go). It is
// entered as a C function from runtime.asmcgocall, on the system stack
// aligned to 16, with the cframe's address in DI. Its frame holds the 16
// stack arguments (0–127) and the cframe's address across the call (128);
// 144 bytes (with the assembler's saved BP and the return address, 160)
// keep SP aligned to 16 at the CALL, as the ABI asks. It uses only
// registers a C function may clobber.
TEXT opencl_callC(SB), NOSPLIT, $144
	MOVQ DI, 128(SP)
	MOVQ DI, R11

	MOVQ cframe_stack+0(R11), R10
	MOVQ R10, 0(SP)
	MOVQ cframe_stack+8(R11), R10
	MOVQ R10, 8(SP)
	MOVQ cframe_stack+16(R11), R10
	MOVQ R10, 16(SP)
	MOVQ cframe_stack+24(R11), R10
	MOVQ R10, 24(SP)
	MOVQ cframe_stack+32(R11), R10
	MOVQ R10, 32(SP)
	MOVQ cframe_stack+40(R11), R10
	MOVQ R10, 40(SP)
	MOVQ cframe_stack+48(R11), R10
	MOVQ R10, 48(SP)
	MOVQ cframe_stack+56(R11), R10
	MOVQ R10, 56(SP)
	MOVQ cframe_stack+64(R11), R10
	MOVQ R10, 64(SP)
	MOVQ cframe_stack+72(R11), R10
	MOVQ R10, 72(SP)
	MOVQ cframe_stack+80(R11), R10
	MOVQ R10, 80(SP)
	MOVQ cframe_stack+88(R11), R10
	MOVQ R10, 88(SP)
	MOVQ cframe_stack+96(R11), R10
	MOVQ R10, 96(SP)
	MOVQ cframe_stack+104(R11), R10
	MOVQ R10, 104(SP)
	MOVQ cframe_stack+112(R11), R10
	MOVQ R10, 112(SP)
	MOVQ cframe_stack+120(R11), R10
	MOVQ R10, 120(SP)

	MOVQ cframe_f+0(R11), X0
	MOVQ cframe_f+8(R11), X1

	MOVQ cframe_i+0(R11), DI
	MOVQ cframe_i+8(R11), SI
	MOVQ cframe_i+16(R11), DX
	MOVQ cframe_i+24(R11), CX
	MOVQ cframe_i+32(R11), R8
	MOVQ cframe_i+40(R11), R9

	MOVL $2, AX // vector registers used (read by variadic functions only)
	MOVQ cframe_fn(R11), R10
	CALL R10

	MOVQ 128(SP), DI
	MOVQ AX, cframe_ret(DI)
	RET
