package opencl

import (
	"fmt"
	"math"
	"unsafe"
)

// Program is OpenCL C source built for a context's device.
type Program struct {
	c *Context
	h uintptr
}

// CL_PROGRAM_BUILD_LOG.
const programBuildLog = 0x1183

// Build compiles OpenCL C source for the context's device with the given
// compiler options (e.g. "-cl-std=CL1.2"). A compile error is an *Error
// whose Log holds the compiler's build log.
func (c *Context) Build(src, options string) (*Program, error) {
	s := append([]byte(src), 0)
	ptr, n := &s[0], uintptr(len(src))
	var code int32
	h := c.a.CreateProgramWithSrc(c.ctx, 1, &ptr, &n, &code)
	if err := check("clCreateProgramWithSource", code); err != nil {
		return nil, err
	}
	opts := append([]byte(options), 0)
	id := c.Device.id
	if code := c.a.BuildProgram(h, 1, &id, &opts[0], 0, 0); code != 0 {
		log, _ := infoString("clGetProgramBuildInfo", func(size uintptr, v unsafe.Pointer, ret *uintptr) int32 {
			return c.a.GetProgramBuildInfo(h, id, programBuildLog, size, v, ret)
		})
		c.a.ReleaseProgram(h)
		return nil, &Error{Func: "clBuildProgram", Code: code, Log: log}
	}
	return &Program{c: c, h: h}, nil
}

// Release frees the program; its kernels stay valid until released.
func (p *Program) Release() error {
	return release("clReleaseProgram", &p.h, p.c.a.ReleaseProgram)
}

// Kernel is one __kernel function of a built program.
type Kernel struct {
	c    *Context
	h    uintptr
	Name string
}

// Kernel returns the program's __kernel function name.
func (p *Program) Kernel(name string) (*Kernel, error) {
	var code int32
	b := append([]byte(name), 0)
	h := p.c.a.CreateKernel(p.h, &b[0], &code)
	if err := check("clCreateKernel", code); err != nil {
		return nil, fmt.Errorf("%w: kernel %q", err, name)
	}
	return &Kernel{c: p.c, h: h, Name: name}, nil
}

// Release frees the kernel.
func (k *Kernel) Release() error {
	return release("clReleaseKernel", &k.h, k.c.a.ReleaseKernel)
}

// Launch1D enqueues the kernel over n work-items (n ≥ 1, any n: the
// global size is rounded up to whole work-groups and the kernel returns
// early for get_global_id(0) ≥ n). Arguments in order: *Buffer, int (as a
// C int), int32, uint32 or float32. It returns once the launch is queued.
func (k *Kernel) Launch1D(n int, args ...any) error {
	if n < 1 {
		return fmt.Errorf("opencl: %s: launch over %d work-items", k.Name, n)
	}
	l := k.c.local
	return k.Launch([]int{(n + l - 1) / l * l}, []int{l}, args...)
}

// Launch enqueues the kernel over the global work sizes (1 to 3
// dimensions), in work-groups of the local sizes (nil: the driver
// chooses; else each global size must be a multiple of its local size).
func (k *Kernel) Launch(global, local []int, args ...any) error {
	if len(global) < 1 || len(global) > 3 || (local != nil && len(local) != len(global)) {
		return fmt.Errorf("opencl: %s: global sizes %v, local sizes %v", k.Name, global, local)
	}
	for i, a := range args {
		if err := k.setArg(uint32(i), a); err != nil {
			return err
		}
	}
	var g, l [3]uintptr
	for i, v := range global {
		g[i] = uintptr(v)
	}
	var lp *uintptr
	if local != nil {
		for i, v := range local {
			l[i] = uintptr(v)
		}
		lp = &l[0]
	}
	code := k.c.a.EnqueueNDRangeKernel(k.c.queue, k.h, uint32(len(global)), nil, &g[0], lp, 0, nil, nil)
	if err := check("clEnqueueNDRangeKernel", code); err != nil {
		return fmt.Errorf("%w: kernel %s, global %v, local %v", err, k.Name, global, local)
	}
	return nil
}

// setArg sets argument i of the kernel from a Go value.
func (k *Kernel) setArg(i uint32, arg any) error {
	var code int32
	switch v := arg.(type) {
	case *Buffer:
		if v == nil || v.mem == 0 {
			return fmt.Errorf("opencl: %s: argument %d is a released or nil buffer", k.Name, i)
		}
		code = k.c.a.SetKernelArg(k.h, i, unsafe.Sizeof(v.mem), unsafe.Pointer(&v.mem))
	case int:
		if v < math.MinInt32 || v > math.MaxInt32 {
			return fmt.Errorf("opencl: %s: argument %d = %d does not fit a C int", k.Name, i, v)
		}
		x := int32(v)
		code = k.c.a.SetKernelArg(k.h, i, 4, unsafe.Pointer(&x))
	case int32:
		code = k.c.a.SetKernelArg(k.h, i, 4, unsafe.Pointer(&v))
	case uint32:
		code = k.c.a.SetKernelArg(k.h, i, 4, unsafe.Pointer(&v))
	case float32:
		code = k.c.a.SetKernelArg(k.h, i, 4, unsafe.Pointer(&v))
	default:
		return fmt.Errorf("opencl: %s: argument %d has type %T (have: *Buffer, int, int32, uint32, float32)", k.Name, i, arg)
	}
	if err := check("clSetKernelArg", code); err != nil {
		return fmt.Errorf("%w: kernel %s, argument %d (%T)", err, k.Name, i, arg)
	}
	return nil
}
