package opencl

import (
	"fmt"
	"unsafe"
)

// Transfers that return at once, and the events that say when they have
// run. The host memory of such a transfer is read or written by the
// driver after the call returns: the caller keeps it referenced and leaves
// it alone until the event's Wait returns (Go's garbage collector does not
// move heap memory).

// Event is an enqueued command's completion; the zero Event has nothing to
// wait for.
type Event struct {
	h uintptr
	a *api
}

// Pending reports whether the event has not been waited for yet.
func (e *Event) Pending() bool { return e.h != 0 }

// Wait blocks until the command has run and releases the event (a no-op
// on the zero Event).
func (e *Event) Wait() error {
	if e.h == 0 {
		return nil
	}
	err := check("clWaitForEvents", e.a.WaitForEvents(1, &e.h))
	e.a.ReleaseEvent(e.h)
	e.h = 0
	return err
}

// cl_event_info for a command's state, and the state of one that has run
// (CL_COMPLETE; an error is negative).
const eventExecutionStatus, eventComplete = 0x11D3, 0

// Done reports, without waiting, whether the command has run; if it has,
// the event is released (as by Wait). The zero Event is done.
func (e *Event) Done() (bool, error) {
	if e.h == 0 {
		return true, nil
	}
	var st int32
	if err := check("clGetEventInfo", e.a.GetEventInfo(e.h, eventExecutionStatus, 4, unsafe.Pointer(&st), nil)); err != nil {
		return false, err
	}
	if st > eventComplete {
		return false, nil
	}
	e.a.ReleaseEvent(e.h)
	e.h = 0
	if st < 0 {
		return true, check("the enqueued command", st)
	}
	return true, nil
}

// ReadAsync enqueues a copy of the buffer's values [off, off+len(dst))
// into dst and returns at once: dst holds them once ev's Wait returns
// (the copy runs after every command enqueued before it). ev must be
// zero (waited for).
func (b *Buffer) ReadAsync(dst []float32, off int, ev *Event) error {
	if err := b.span("ReadAsync", off, len(dst), ev); err != nil {
		return err
	}
	return check("clEnqueueReadBuffer", b.c.a.EnqueueReadBuffer(b.c.queue, b.mem, 0, uintptr(off)*4, uintptr(len(dst))*4,
		unsafe.Pointer(&dst[0]), 0, nil, unsafe.Pointer(&ev.h)))
}

// WriteAsync enqueues a copy of src into the buffer's values
// [off, off+len(src)) and returns at once: src must stay as it is until
// ev's Wait returns. ev must be zero (waited for).
func (b *Buffer) WriteAsync(src []float32, off int, ev *Event) error {
	if err := b.span("WriteAsync", off, len(src), ev); err != nil {
		return err
	}
	return check("clEnqueueWriteBuffer", b.c.a.EnqueueWriteBuffer(b.c.queue, b.mem, 0, uintptr(off)*4, uintptr(len(src))*4,
		unsafe.Pointer(&src[0]), 0, nil, unsafe.Pointer(&ev.h)))
}

// span checks a transfer of n values at off and its event, and readies
// the event.
func (b *Buffer) span(fn string, off, n int, ev *Event) error {
	if n < 1 || off < 0 || off+n > b.n {
		return fmt.Errorf("opencl: %s: values [%d, %d) of a buffer of %d", fn, off, off+n, b.n)
	}
	if ev == nil || ev.h != 0 {
		return fmt.Errorf("opencl: %s: the event is nil or not yet waited for", fn)
	}
	ev.a = b.c.a
	return nil
}
