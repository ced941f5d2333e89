package opencl

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// Transfers that return at once, and the events that say when they have
// run. The host memory of such a transfer is read or written by the
// driver after the call returns: the caller keeps it referenced and leaves
// it alone until the event's Wait returns (Go's garbage collector does not
// move heap memory).

// eventAPI holds the entry points for events, bound apart from api (lib.go)
// on the same library.
type eventAPI struct {
	WaitForEvents func(n uint32, evs *uintptr) int32
	ReleaseEvent  func(ev uintptr) int32
	GetEventInfo  func(ev uintptr, param uint32, size uintptr, value unsafe.Pointer, ret *uintptr) int32
}

var (
	evOnce sync.Once
	evAPI  *eventAPI
	evErr  error
)

func loadEvents() (*eventAPI, error) {
	evOnce.Do(func() {
		if _, err := load(); err != nil {
			evErr = err
			return
		}
		h, err := purego.Dlopen(LibOpenCL, purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err != nil {
			evErr = fmt.Errorf("opencl: %s: %w", LibOpenCL, err)
			return
		}
		a := &eventAPI{}
		if evErr = bind(h, LibOpenCL, &a.WaitForEvents, "clWaitForEvents"); evErr != nil {
			return
		}
		if evErr = bind(h, LibOpenCL, &a.ReleaseEvent, "clReleaseEvent"); evErr != nil {
			return
		}
		if evErr = bind(h, LibOpenCL, &a.GetEventInfo, "clGetEventInfo"); evErr != nil {
			return
		}
		evAPI = a
	})
	return evAPI, evErr
}

// Event is an enqueued command's completion; the zero Event has nothing to
// wait for.
type Event struct {
	h uintptr
}

// Pending reports whether the event has not been waited for yet.
func (e *Event) Pending() bool { return e.h != 0 }

// Wait blocks until the command has run and releases the event (a no-op
// on the zero Event).
func (e *Event) Wait() error {
	if e.h == 0 {
		return nil
	}
	a, err := loadEvents()
	if err != nil {
		return err
	}
	err = check("clWaitForEvents", a.WaitForEvents(1, &e.h))
	a.ReleaseEvent(e.h)
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
	a, err := loadEvents()
	if err != nil {
		return false, err
	}
	var st int32
	if err := check("clGetEventInfo", a.GetEventInfo(e.h, eventExecutionStatus, 4, unsafe.Pointer(&st), nil)); err != nil {
		return false, err
	}
	if st > eventComplete {
		return false, nil
	}
	a.ReleaseEvent(e.h)
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
	if _, err := loadEvents(); err != nil {
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
	if _, err := loadEvents(); err != nil {
		return err
	}
	return check("clEnqueueWriteBuffer", b.c.a.EnqueueWriteBuffer(b.c.queue, b.mem, 0, uintptr(off)*4, uintptr(len(src))*4,
		unsafe.Pointer(&src[0]), 0, nil, unsafe.Pointer(&ev.h)))
}

// span checks a transfer of n values at off and its event.
func (b *Buffer) span(fn string, off, n int, ev *Event) error {
	if n < 1 || off < 0 || off+n > b.n {
		return fmt.Errorf("opencl: %s: values [%d, %d) of a buffer of %d", fn, off, off+n, b.n)
	}
	if ev == nil || ev.h != 0 {
		return fmt.Errorf("opencl: %s: the event is nil or not yet waited for", fn)
	}
	return nil
}

// cl_device_info for the largest total size of a kernel's arguments.
const deviceMaxParameterSize = 0x1017

// MaxParameterSize is the most bytes of arguments a kernel of the device
// may take (CL_DEVICE_MAX_PARAMETER_SIZE: at least 1024; a buffer argument
// takes the size of a pointer).
func (c *Context) MaxParameterSize() (int, error) {
	var v uintptr
	if err := check("clGetDeviceInfo", c.a.GetDeviceInfo(c.Device.id, deviceMaxParameterSize, unsafe.Sizeof(v), unsafe.Pointer(&v), nil)); err != nil {
		return 0, err
	}
	return int(v), nil
}
