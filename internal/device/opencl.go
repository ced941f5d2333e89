package device

import (
	"embed"
	"fmt"
	"io/fs"
	"reflect"
	"strings"

	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/opencl"
)

//go:embed kernels/*.cl
var kernelFS embed.FS

// kernelSource is every kernels/*.cl file, in name order, in one program.
func kernelSource() string {
	names, err := fs.Glob(kernelFS, "kernels/*.cl")
	if err != nil {
		panic(err) // the pattern is a constant
	}
	var b strings.Builder
	for _, n := range names {
		src, _ := kernelFS.ReadFile(n)
		fmt.Fprintf(&b, "// %s\n%s\n", n, src)
	}
	return b.String()
}

// kernelNames are the __kernel functions of kernels/*.cl, in source order:
// each is declared on a line that starts "__kernel void NAME(".
func kernelNames() []string {
	var names []string
	for _, line := range strings.Split(kernelSource(), "\n") {
		if rest, ok := strings.CutPrefix(line, "__kernel void "); ok {
			if i := strings.Index(rest, "("); i > 0 {
				names = append(names, strings.TrimSpace(rest[:i]))
			}
		}
	}
	return names
}

// OpenCL is an OpenCL device and the OpenCL backend (backend.go): a
// context and command queue on one device, the kernels of kernels/*.cl
// built for it, and CLBlast's SGEMM. It is not safe for concurrent use.
type OpenCL struct {
	c    *opencl.Context
	prog *opencl.Program
	k    map[string]*opencl.Kernel // the kernel objects launches share outside a site
	t    Traffic
	site *Site                       // where the launches go now (sites.go); nil: the shared kernels
	in   map[*opencl.Buffer]*staging // WriteAsync's host copies, per buffer
}

// Traffic counts what a device did: bytes written to it and read from it,
// and kernel launches (a CLBlast call counts as one; GemmCalls of them are
// CLBlast calls, each of which launches one kernel or several, counted in
// LibraryLaunches where the shim is loaded).
type Traffic struct {
	BytesIn, BytesOut int64
	Launches          int64
	GemmCalls         int64
	GemmFlops         int64 // 2·m·n·k per matrix product: most of a step's arithmetic

	// LibraryLaunches counts the kernels the libraries (CLBlast) launched
	// in this process, as the bench/clcount shim counts them
	// (opencl.LibraryLaunches); LibraryCounted is false, and the count 0,
	// where the shim is not preloaded.
	LibraryLaunches int64
	LibraryCounted  bool

	// Allocs counts the buffers allocated. BlockingReads and
	// BlockingWrites count the transfers that returned only once the queue
	// had run up to them (Read, Write); Waits the times the host waited
	// for a transfer enqueued without waiting (Update's late loss).
	Allocs, BlockingReads, BlockingWrites, Waits int64

	// Memory: the bytes of the buffers allocated and not yet freed, and
	// the most there have been at once.
	LiveBytes, PeakBytes int64
}

// Counter is the ability of a device to count its traffic.
type Counter interface {
	Traffic() Traffic
}

// Traffic is what the device has done since it was opened (the library
// launches: since the process began).
func (o *OpenCL) Traffic() Traffic {
	t := o.t
	t.LibraryLaunches, t.LibraryCounted = opencl.LibraryLaunches()
	return t
}

// NewOpenCL opens device d (from opencl.Platforms) and builds the kernels.
func NewOpenCL(d opencl.Device) (*OpenCL, error) {
	c, err := opencl.NewContext(d)
	if err != nil {
		return nil, err
	}
	if tune, err := clblastFromEnv(); err != nil || tune != nil {
		if err == nil {
			err = c.OverrideCLBlast(tune)
		}
		if err != nil {
			c.Close()
			return nil, fmt.Errorf("device: CLBlast's tuning for %s (%s): %w", d.Key(), d.Name, err)
		}
	}
	p, err := c.Build(kernelSource(), fmt.Sprintf("-cl-std=CL1.2 -DWG=%d", c.GroupSize()))
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("device: building the kernels for %s (%s): %w", d.Key(), d.Name, err)
	}
	o := &OpenCL{c: c, prog: p, k: map[string]*opencl.Kernel{}}
	for _, name := range kernelNames() {
		k, err := p.Kernel(name)
		if err != nil {
			o.Close()
			return nil, err
		}
		o.k[name] = k
	}
	return o, nil
}

// Close releases the kernels, the program and the context.
func (o *OpenCL) Close() error {
	for b := range o.in {
		o.unstage(b)
	}
	for _, k := range o.k {
		k.Release()
	}
	o.prog.Release()
	return o.c.Close()
}

// Name is "opencl:P:D (NAME)".
func (o *OpenCL) Name() string { return fmt.Sprintf("%s (%s)", o.c.Device.Key(), o.c.Device.Name) }

// Device is the OpenCL device the kernels run on.
func (o *OpenCL) Device() opencl.Device { return o.c.Device }

// clBuf is b as an OpenCL buffer; a host buffer (nil) or another
// device's is an error.
func clBuf(kernel string, i int, b backend.Mem) (*opencl.Buffer, error) {
	if b == nil {
		return nil, fmt.Errorf("device: opencl: %s: buffer %d is a host buffer", kernel, i)
	}
	cb, ok := b.(*opencl.Buffer)
	if !ok {
		return nil, fmt.Errorf("device: opencl: %s: buffer %d (%v) is not an OpenCL buffer", kernel, i, reflect.TypeOf(b))
	}
	return cb, nil
}

// Kernel runs kernel over global work-items (rounded up to whole
// work-groups: the kernel returns early past its size) with the arguments
// in order: buffers of this device (backend.Buf or backend.Mem), int,
// int32, uint32 or float32. It is how the engine's ops reach kernels of
// their own in kernels/*.cl. The arguments are read, not kept
// (opencl.Kernel.Launch): a launch allocates nothing, and at a Site sets
// only the arguments that changed. A backend.Buf among args is replaced
// there by its device buffer (devArgs).
func (o *OpenCL) Kernel(kernel string, global int, args ...any) error {
	k, err := o.kernel(kernel, args)
	if err != nil {
		return err
	}
	return k.Launch1D(global, args...)
}

// KernelRows runs kernel with one work-group of GroupSize work-items per
// row (rows groups), for kernels that reduce along a row in local memory.
func (o *OpenCL) KernelRows(kernel string, rows int, args ...any) error {
	if rows < 1 {
		return fmt.Errorf("device: opencl: %s: %d rows", kernel, rows)
	}
	k, err := o.kernel(kernel, args)
	if err != nil {
		return err
	}
	wg := o.c.GroupSize()
	return k.Launch([]int{rows * wg}, []int{wg}, args...)
}

// devArgs replaces each backend.Buf among a launch's arguments, in place,
// by its device buffer (Buf.Mem); a host buffer (no Mem), or a nil
// argument, is an error. A buffer of another device fails in the launch:
// opencl.Kernel takes only its own.
func devArgs(kernel string, args []any) error {
	for i, a := range args {
		if b, ok := a.(backend.Buf); ok {
			args[i] = b.Mem // nil for a host buffer
		}
		if args[i] == nil {
			return fmt.Errorf("device: opencl: %s: argument %d is a host buffer", kernel, i)
		}
	}
	return nil
}

// kernel is the kernel object a launch of kernel with args uses (the
// site's own, at a site: sites.go), once devArgs has passed, and counts
// the launch. A buffer of another device among the arguments fails in the
// launch: opencl.Kernel takes only its own.
func (o *OpenCL) kernel(kernel string, args []any) (*opencl.Kernel, error) {
	if err := devArgs(kernel, args); err != nil {
		return nil, err
	}
	k, ok := o.k[kernel]
	if !ok {
		return nil, fmt.Errorf("device: opencl: no kernel %q in kernels/*.cl", kernel)
	}
	o.t.Launches++
	if o.site != nil {
		return o.site.kernel(o.prog, k)
	}
	return k, nil
}

// GroupSize is the work-group size KernelRows launches (the kernels see
// it as the macro WG).
func (o *OpenCL) GroupSize() int { return o.c.GroupSize() }

// SgemmAt is Sgemm on matrices that start at offsets (in values) into
// their buffers.
func (o *OpenCL) SgemmAt(transA, transB bool, m, n, k int, alpha float32, a backend.Mem, aOff, lda int, b backend.Mem, bOff, ldb int,
	beta float32, c backend.Mem, cOff, ldc int) error {
	var bs [3]*opencl.Buffer
	for i, m := range [3]backend.Mem{a, b, c} {
		var err error
		if bs[i], err = clBuf("SgemmAt", i, m); err != nil {
			return err
		}
	}
	o.t.Launches++
	o.t.GemmCalls++
	o.t.GemmFlops += 2 * int64(m) * int64(n) * int64(k)
	return o.c.Sgemm(transA, transB, m, n, k, alpha, bs[0], aOff, lda, bs[1], bOff, ldb, beta, bs[2], cOff, ldc)
}

// launch runs an elementwise kernel over n values: (bs…, n).
func (o *OpenCL) launch(kernel string, n int, bs ...backend.Buf) error {
	if err := fits(kernel, n, bs...); err != nil {
		return err
	}
	var args [4]any
	for i, b := range bs {
		args[i] = b.Mem
	}
	args[len(bs)] = n
	return o.Kernel(kernel, n, args[:len(bs)+1]...)
}

// launchRows runs a row kernel, one work-group per row: (bs…, rows, cols).
func (o *OpenCL) launchRows(kernel string, rows, cols int, bs ...backend.Buf) error {
	if rows < 1 || cols < 1 {
		return fmt.Errorf("device: %s: %d rows × %d columns (want ≥ 1 each)", kernel, rows, cols)
	}
	if err := fits(kernel, rows*cols, bs...); err != nil {
		return err
	}
	var args [5]any
	for i, b := range bs {
		args[i] = b.Mem
	}
	args[len(bs)], args[len(bs)+1] = rows, cols
	return o.KernelRows(kernel, rows, args[:len(bs)+2]...)
}

// fits checks that each buffer holds at least n values.
func fits(kernel string, n int, bs ...backend.Buf) error {
	if n < 1 {
		return fmt.Errorf("device: %s: size %d (want ≥ 1)", kernel, n)
	}
	for i, b := range bs {
		if b.Mem == nil {
			return fmt.Errorf("device: %s: buffer %d is a host buffer", kernel, i)
		}
		if b.Len() < n {
			return fmt.Errorf("device: %s: buffer %d holds %d values, the kernel needs %d", kernel, i, b.Len(), n)
		}
	}
	return nil
}
