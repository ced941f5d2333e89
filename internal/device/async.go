package device

import (
	"errors"
	"fmt"

	"github.com/attnzoo/attnzoo/internal/opencl"
)

// AsyncWriter is the ability of a device to take a buffer's values without
// making the host wait for the queue (the OpenCL device's WriteAsync).
type AsyncWriter interface {
	WriteAsync(b Buffer, src []float32) error
}

// staging is a buffer's host copies for WriteAsync: two, used in turn, each
// kept until the write from it has run.
type staging struct {
	vals [2][]float32
	ev   [2]opencl.Event
	next int
}

// WriteAsync copies src into b as Write does, but returns at once: src is
// first copied into host memory the device keeps until the write has run
// (two copies per buffer, used in turn), so the caller may change src
// straight away. Commands enqueued after it see the new values.
func (o *OpenCL) WriteAsync(b Buffer, src []float32) error {
	cb, err := clBuf("WriteAsync", 0, b)
	if err != nil {
		return err
	}
	if len(src) != cb.Len() {
		return fmt.Errorf("device: opencl: WriteAsync: %d values into a buffer of %d", len(src), cb.Len())
	}
	if o.in == nil {
		o.in = map[*opencl.Buffer]*staging{}
	}
	st := o.in[cb]
	if st == nil {
		st = &staging{}
		o.in[cb] = st
	}
	k := st.next
	st.next ^= 1
	if err := o.settle(&st.ev[k]); err != nil { // the write of two writes ago
		return err
	}
	if len(st.vals[k]) != len(src) {
		st.vals[k] = make([]float32, len(src))
	}
	copy(st.vals[k], src)
	o.t.BytesIn += 4 * int64(len(src))
	return cb.WriteAsync(st.vals[k], 0, &st.ev[k])
}

// settle makes ev's command done: at once if it has run (nothing counted),
// else by waiting for it (counted in Traffic.Waits).
func (o *OpenCL) settle(ev *opencl.Event) error {
	done, err := ev.Done()
	if err != nil || done {
		return err
	}
	o.t.Waits++
	return ev.Wait()
}

// unstage waits for the writes still in flight into b and forgets its host
// copies (b is being freed).
func (o *OpenCL) unstage(b *opencl.Buffer) error {
	st := o.in[b]
	if st == nil {
		return nil
	}
	delete(o.in, b)
	return errors.Join(st.ev[0].Wait(), st.ev[1].Wait())
}
