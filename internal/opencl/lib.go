package opencl

import (
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// The shared libraries opened at run time.
const (
	LibOpenCL  = "libOpenCL.so.1"
	LibCLBlast = "libclblast.so.1"
)

// ErrUnavailable is wrapped by every error that says OpenCL cannot be used
// on this machine at all: the ICD loader is missing, or it finds no driver.
var ErrUnavailable = errors.New("OpenCL is not available")

// driverHint says how to get an OpenCL driver; the errors that find none end with it.
const driverHint = "install your device vendor's OpenCL driver (NVIDIA: a one-line /etc/OpenCL/vendors/nvidia.icd naming the driver's " +
	"libnvidia-opencl.so.1; Debian's nvidia-opencl-icd only with Debian's own driver of the same version; " +
	"AMD: ROCm's OpenCL runtime; Intel: intel-opencl-icd), or pocl-opencl-icd to run OpenCL on the CPU; " +
	"drivers register themselves in /etc/OpenCL/vendors/*.icd"

// api holds the OpenCL 1.2 entry points this package calls, field F the C
// function clF (bindAll). Handles
// (cl_platform_id, cl_context, cl_mem, …) are uintptr; cl_int is int32,
// cl_uint uint32, cl_bitfield uint64, size_t uintptr.
type api struct {
	GetPlatformIDs          func(n uint32, ids *uintptr, num *uint32) int32
	GetPlatformInfo         func(p uintptr, param uint32, size uintptr, value unsafe.Pointer, ret *uintptr) int32
	GetDeviceIDs            func(p uintptr, typ uint64, n uint32, ids *uintptr, num *uint32) int32
	GetDeviceInfo           func(d uintptr, param uint32, size uintptr, value unsafe.Pointer, ret *uintptr) int32
	CreateContext           func(props unsafe.Pointer, n uint32, devs *uintptr, notify, user uintptr, errc *int32) uintptr
	GetContextInfo          func(ctx uintptr, param uint32, size uintptr, value unsafe.Pointer, ret *uintptr) int32
	CreateCommandQueue      func(ctx, dev uintptr, props uint64, errc *int32) uintptr
	CreateBuffer            func(ctx uintptr, flags uint64, size uintptr, host unsafe.Pointer, errc *int32) uintptr
	CreateSubBuffer         func(mem uintptr, flags uint64, typ uint32, info unsafe.Pointer, errc *int32) uintptr
	EnqueueWriteBuffer      func(q, mem uintptr, blocking uint32, off, size uintptr, ptr unsafe.Pointer, nev uint32, wait, ev unsafe.Pointer) int32
	EnqueueReadBuffer       func(q, mem uintptr, blocking uint32, off, size uintptr, ptr unsafe.Pointer, nev uint32, wait, ev unsafe.Pointer) int32
	CreateProgramWithSource func(ctx uintptr, n uint32, src **byte, lens *uintptr, errc *int32) uintptr
	BuildProgram            func(p uintptr, n uint32, devs *uintptr, opts *byte, notify, user uintptr) int32
	GetProgramBuildInfo     func(p, dev uintptr, param uint32, size uintptr, value unsafe.Pointer, ret *uintptr) int32
	CreateKernel            func(p uintptr, name *byte, errc *int32) uintptr
	Finish                  func(q uintptr) int32
	ReleaseMemObject        func(h uintptr) int32
	ReleaseKernel           func(h uintptr) int32
	ReleaseProgram          func(h uintptr) int32
	ReleaseCommandQueue     func(h uintptr) int32
	ReleaseContext          func(h uintptr) int32
	WaitForEvents           func(n uint32, evs *uintptr) int32
	ReleaseEvent            func(ev uintptr) int32
	GetEventInfo            func(ev uintptr, param uint32, size uintptr, value unsafe.Pointer, ret *uintptr) int32

	// clSetKernelArg and clEnqueueNDRangeKernel, called for every launch,
	// are called through purego.SyscallN, which allocates nothing
	// (launch.go); the rest through purego's RegisterFunc, which
	// allocates a few values a call.
	SetKernelArg, EnqueueNDRangeKernel uintptr
}

// clblastAPI holds CLBlast's entry points. Its enums are C ints (int32).
type clblastAPI struct {
	// CLBlastSgemm: layout, transA, transB, m, n, k, alpha, a, aOff, lda,
	// b, bOff, ldb, beta, c, cOff, ldc, queue*, event* (19 arguments).
	Sgemm func(layout, ta, tb int32, m, n, k uintptr, alpha float32,
		a, aOff, lda, b, bOff, ldb uintptr, beta float32, c, cOff, ldc uintptr,
		q *uintptr, ev unsafe.Pointer) int32
	// Its address, for a call without purego's reflection (ccall_amd64.go).
	SgemmFn uintptr `c:"CLBlastSgemm"`
	// CLBlastClearCache() drops every program and binary CLBlast has
	// compiled, for every context (clblast_c.h of libclblast-dev 1.5.3).
	ClearCache func() int32
	// CLBlastOverrideParameters(device, kernel name, precision, number of
	// parameters, their names, their values) (clblast_tune.go).
	OverrideParameters func(dev uintptr, kernel *byte, precision int32, n uintptr, names **byte, values *uintptr) int32
}

var (
	clOnce sync.Once
	cl     *api
	clErr  error

	blasOnce sync.Once
	blas     *clblastAPI
	blasErr  error
)

// load opens libOpenCL.so.1 once per process.
func load() (*api, error) {
	clOnce.Do(func() { cl, clErr = openCL(LibOpenCL) })
	return cl, clErr
}

// loadCLBlast opens libclblast.so.1 once per process.
func loadCLBlast() (*clblastAPI, error) {
	blasOnce.Do(func() { blas, blasErr = openCLBlast(LibCLBlast) })
	return blas, blasErr
}

func openCL(name string) (*api, error) {
	h, err := purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		return nil, fmt.Errorf("opencl: cannot load %s, the OpenCL ICD loader (%v): %w; "+
			"install it (Debian/Ubuntu: apt-get install ocl-icd-libopencl1) and %s", name, err, ErrUnavailable, driverHint)
	}
	a := &api{}
	if err := bindAll(h, name, "cl", a); err != nil {
		return nil, err
	}
	return a, nil
}

func openCLBlast(name string) (*clblastAPI, error) {
	h, err := purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		return nil, fmt.Errorf("opencl: cannot load %s, CLBlast, which computes the matrix products on OpenCL devices (%v); "+
			"install it (Debian/Ubuntu: apt-get install libclblast1)", name, err)
	}
	b := &clblastAPI{}
	if err := bindAll(h, name, "CLBlast", b); err != nil {
		return nil, err
	}
	return b, nil
}

// bindAll binds each field of the struct *v to the C symbol of library
// lib (handle h) named prefix+the field's name, or its tag c:"NAME": a
// func field through purego's RegisterFunc, a uintptr field to the
// symbol's address. A missing symbol is an error, not purego's panic.
func bindAll(h uintptr, lib, prefix string, v any) error {
	s := reflect.ValueOf(v).Elem()
	for i := range s.NumField() {
		f, t := s.Field(i), s.Type().Field(i)
		addr, err := sym(h, lib, cmp.Or(t.Tag.Get("c"), prefix+t.Name))
		if err != nil {
			return err
		}
		if f.Kind() == reflect.Func {
			purego.RegisterFunc(f.Addr().Interface(), addr)
		} else {
			f.SetUint(uint64(addr))
		}
	}
	return nil
}

// sym is the address of the C symbol name of library lib (handle h).
func sym(h uintptr, lib, name string) (uintptr, error) {
	addr, err := purego.Dlsym(h, name)
	if err != nil || addr == 0 {
		return 0, fmt.Errorf("opencl: %s has no %s (%v): it is not an OpenCL 1.2 library", lib, name, err)
	}
	return addr, nil
}
