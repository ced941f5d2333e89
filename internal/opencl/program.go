package opencl

import (
	"fmt"
	"slices"
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
	h := c.a.CreateProgramWithSource(c.ctx, 1, &ptr, &n, &code)
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

// Kernel is one __kernel function of a built program: one cl_kernel
// object. OpenCL keeps a kernel object's arguments from launch to launch,
// so a Kernel remembers what it last set each argument to and sets only
// the arguments that changed: a kernel object that one launch site keeps
// for itself (device.Site) has its arguments set at its first launch and
// is then only enqueued, one clEnqueueNDRangeKernel a launch. Launching
// allocates nothing (launch.go).
type Kernel struct {
	c    *Context
	p    *Program
	h    uintptr
	Name string

	set  []argValue // what each argument was last set to
	word uint32     // the 4-byte value clSetKernelArg reads
	mem  uintptr    // the buffer handle clSetKernelArg reads
	g, l [3]uintptr // the work sizes clEnqueueNDRangeKernel reads
	sys  [9]uintptr // the C call's arguments
}

// Kernel returns the program's __kernel function name, as a kernel object
// of its own (each call a new one).
func (p *Program) Kernel(name string) (*Kernel, error) {
	var code int32
	b := append([]byte(name), 0)
	h := p.c.a.CreateKernel(p.h, &b[0], &code)
	if err := check("clCreateKernel", code); err != nil {
		return nil, fmt.Errorf("%w: kernel %q", err, name)
	}
	return &Kernel{c: p.c, p: p, h: h, Name: name}, nil
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
// The arguments are read once, through a type switch, and never kept: the
// caller's slice and the values boxed in it stay on its stack.
func (k *Kernel) Launch(global, local []int, args ...any) error {
	if len(global) < 1 || len(global) > 3 || (local != nil && len(local) != len(global)) {
		return fmt.Errorf("opencl: %s: global sizes %v, local sizes %v", k.Name, slices.Clone(global), slices.Clone(local))
	}
	for i, a := range args {
		if err := k.setArg(i, a); err != nil {
			return err
		}
	}
	return k.enqueue(global, local)
}
