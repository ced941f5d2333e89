package opencl

import (
	"fmt"
	"sync/atomic"
	"time"
	"unsafe"
)

// Context is an OpenCL context on one device with one in-order command
// queue: commands run in the order they are enqueued, so a Read sees every
// kernel launched before it. A Context is not safe for concurrent use; a
// second goroutine wants its own Context (its own queue).
type Context struct {
	Device Device
	a      *api
	ctx    uintptr
	queue  uintptr
	local  int     // the work-group size of Launch1D
	notes  uintptr // the context's number for its error callback (notify.go)
	blas   bool    // CLBlast has computed here: its cache holds programs of this context
}

// groupSize is the work-group size Launch1D asks for (or the device's
// largest, if smaller): a multiple of NVIDIA's 32-wide warps and AMD's
// 64-wide wavefronts.
const groupSize = 64

// NewContext creates a context and a command queue on device d (from
// Platforms).
func NewContext(d Device) (*Context, error) {
	a, err := load()
	if err != nil {
		return nil, err
	}
	id := d.id
	if id == 0 {
		return nil, fmt.Errorf("opencl: device %s (%q) was not listed by Platforms", d.Key(), d.Name)
	}
	var code int32
	notes := newNotes()
	ctx := a.CreateContext(nil, 1, &id, notifyCallback(), notes, &code)
	if err := check("clCreateContext", code); err != nil {
		dropNotes(notes)
		return nil, fmt.Errorf("%w (device %s, %s)", err, d.Key(), d.Name)
	}
	q := a.CreateCommandQueue(ctx, id, 0, &code)
	if err := check("clCreateCommandQueue", code); err != nil {
		a.ReleaseContext(ctx)
		dropNotes(notes)
		return nil, fmt.Errorf("%w (device %s, %s)", err, d.Key(), d.Name)
	}
	account(id, func(u *Usage) { u.Contexts++ })
	c := &Context{Device: d, a: a, ctx: ctx, queue: q, local: groupSize, notes: notes}
	for c.local > 1 && c.local > d.MaxWorkGroup {
		c.local /= 2
	}
	return c, nil
}

// GroupSize is the work-group size of Launch1D: 64, or the largest power
// of two the device allows if that is smaller. Kernels that reduce in
// local memory are built for it.
func (c *Context) GroupSize() int { return c.local }

// Finish waits until every enqueued command has run.
func (c *Context) Finish() error { return c.explain(check("clFinish", c.a.Finish(c.queue))) }

// cl_context_info for the context's reference count.
const contextReferenceCount = 0x1080

// Close waits for the queue and releases the queue and the context. The
// context's buffers, programs and kernels should be released first: each
// keeps the context alive (Usage.Held counts a context closed so). Where
// CLBlast has computed on the context, its program cache is cleared first
// (CLBlastClearCache: it keeps every context's programs, and so every
// context, until cleared); other contexts' products compile again on their
// next call.
func (c *Context) Close() error {
	if c.ctx == 0 {
		return nil
	}
	err := c.Finish()
	c.a.ReleaseCommandQueue(c.queue)
	if c.blas {
		if e := clearCLBlastCache(); err == nil {
			err = e
		}
	}
	var refs uint32
	if c.a.GetContextInfo(c.ctx, contextReferenceCount, 4, unsafe.Pointer(&refs), nil) != 0 {
		refs = 1 // unknown: not counted as held
	}
	// pocl releases a finished command's event, which references the
	// context, on a thread of its own after clFinish has returned: a count
	// above 1 is read again for up to 100 ms before it counts as held
	for i := 0; i < 100 && refs > 1; i++ {
		time.Sleep(time.Millisecond)
		if c.a.GetContextInfo(c.ctx, contextReferenceCount, 4, unsafe.Pointer(&refs), nil) != 0 {
			refs = 1
		}
	}
	c.a.ReleaseContext(c.ctx)
	account(c.Device.id, func(u *Usage) {
		u.Contexts--
		if refs > 1 {
			u.Held++
		}
	})
	dropNotes(c.notes)
	c.ctx, c.queue = 0, 0
	return err
}

// Buffer is device memory holding Len float32 values (or other 4-byte words).
type Buffer struct {
	c   *Context
	mem uintptr
	n   int
	sub bool   // a span of another buffer (Sub): not counted in Usage
	id  uint64 // unique in the process: what a Kernel remembers having set (a released handle's value may come back)
}

// bufferIDs numbers the buffers.
var bufferIDs atomic.Uint64

// memReadWrite is CL_MEM_READ_WRITE.
const memReadWrite = 1 << 0

// Alloc allocates a buffer of n float32 values (n ≥ 1) on the device; its
// contents are undefined until written.
func (c *Context) Alloc(n int) (*Buffer, error) {
	if n < 1 {
		return nil, fmt.Errorf("opencl: Alloc(%d): a buffer holds at least one value", n)
	}
	if uint64(n)*4 > c.Device.MaxAlloc && c.Device.MaxAlloc > 0 {
		return nil, fmt.Errorf("opencl: Alloc(%d): %d bytes exceed the largest buffer of %s (%d bytes)", n, n*4, c.Device.Name, c.Device.MaxAlloc)
	}
	var code int32
	m := c.a.CreateBuffer(c.ctx, memReadWrite, uintptr(n)*4, nil, &code)
	if err := check("clCreateBuffer", code); err != nil {
		return nil, c.explain(fmt.Errorf("%w (%d float32)", err, n))
	}
	account(c.Device.id, func(u *Usage) { u.Buffers++; u.Bytes += 4 * int64(n) })
	return &Buffer{c: c, mem: m, n: n, id: bufferIDs.Add(1)}, nil
}

// Len is the number of float32 values the buffer holds.
func (b *Buffer) Len() int { return b.n }

// IsView reports whether the buffer is a span of another (Sub).
func (b *Buffer) IsView() bool { return b.sub }

// bufferCreateTypeRegion is CL_BUFFER_CREATE_TYPE_REGION.
const bufferCreateTypeRegion = 0x1220

// Sub returns values [off, off+n) of the buffer as a buffer of its own,
// sharing its memory (clCreateSubBuffer): what is written through one is
// read through the other. off·4 must be a multiple of the device's
// BaseAlign. Release it before the buffer.
func (b *Buffer) Sub(off, n int) (*Buffer, error) {
	if n < 1 || off < 0 || off+n > b.n {
		return nil, fmt.Errorf("opencl: Sub: values [%d, %d) of a buffer of %d", off, off+n, b.n)
	}
	if a := int(b.c.Device.BaseAlign); a == 0 || off*4%a != 0 {
		return nil, fmt.Errorf("opencl: Sub: offset %d bytes is not a multiple of %s's CL_DEVICE_MEM_BASE_ADDR_ALIGN (%d bytes)", off*4, b.c.Device.Name, a)
	}
	region := [2]uintptr{uintptr(off) * 4, uintptr(n) * 4}
	var code int32
	m := b.c.a.CreateSubBuffer(b.mem, memReadWrite, bufferCreateTypeRegion, unsafe.Pointer(&region[0]), &code)
	if err := check("clCreateSubBuffer", code); err != nil {
		return nil, b.c.explain(fmt.Errorf("%w (values [%d, %d) of %d)", err, off, off+n, b.n))
	}
	return &Buffer{c: b.c, mem: m, n: n, sub: true, id: bufferIDs.Add(1)}, nil
}

// Write copies src (len(src) == b.Len()) to the device; it returns when
// src may be reused.
func (b *Buffer) Write(src []float32) error {
	if len(src) != b.n {
		return fmt.Errorf("opencl: Write: %d values into a buffer of %d", len(src), b.n)
	}
	return b.c.explain(check("clEnqueueWriteBuffer", b.c.a.EnqueueWriteBuffer(b.c.queue, b.mem, 1, 0, uintptr(b.n)*4, unsafe.Pointer(&src[0]), 0, nil, nil)))
}

// Read copies the buffer into dst (len(dst) == b.Len()) after every
// command enqueued before it has run.
func (b *Buffer) Read(dst []float32) error {
	if len(dst) != b.n {
		return fmt.Errorf("opencl: Read: a buffer of %d values into %d", b.n, len(dst))
	}
	return b.c.explain(check("clEnqueueReadBuffer", b.c.a.EnqueueReadBuffer(b.c.queue, b.mem, 1, 0, uintptr(b.n)*4, unsafe.Pointer(&dst[0]), 0, nil, nil)))
}

// Release frees the device memory; the buffer must not be used after.
func (b *Buffer) Release() error {
	if b.mem == 0 {
		return nil
	}
	if !b.sub {
		account(b.c.Device.id, func(u *Usage) { u.Buffers--; u.Bytes -= 4 * int64(b.n) })
	}
	return release("clReleaseMemObject", &b.mem, b.c.a.ReleaseMemObject)
}
