package device

import (
	"errors"
	"fmt"

	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/opencl"
)

// The OpenCL backend's memory (backend.Memory): buffers of the device's
// context, counted in Traffic.

func (o *OpenCL) Alloc(n int) (backend.Buf, error) {
	m, err := o.c.Alloc(n)
	if err != nil {
		return backend.Buf{}, err
	}
	o.t.Allocs++
	o.t.LiveBytes += 4 * int64(n)
	o.t.PeakBytes = max(o.t.PeakBytes, o.t.LiveBytes)
	return backend.Buf{Mem: m}, nil
}

func (o *OpenCL) Free(x backend.Buf) error {
	m, err := clBuf("Free", 0, x.Mem)
	if err != nil {
		return err
	}
	if !m.IsView() { // a view's memory is its buffer's
		o.t.LiveBytes -= 4 * int64(m.Len())
	}
	if err := o.unstage(m); err != nil {
		return err
	}
	return m.Release()
}

func (o *OpenCL) Write(x backend.Buf, src []float32) error {
	m, err := clBuf("Write", 0, x.Mem)
	if err != nil {
		return err
	}
	o.t.BytesIn += 4 * int64(len(src))
	o.t.BlockingWrites++
	return m.Write(src)
}

func (o *OpenCL) Read(dst []float32, x backend.Buf) error {
	m, err := clBuf("Read", 0, x.Mem)
	if err != nil {
		return err
	}
	o.t.BytesOut += 4 * int64(len(dst))
	o.t.BlockingReads++
	return m.Read(dst)
}

// staging is a buffer's host copies for WriteAsync: two, used in turn, each
// kept until the write from it has run.
type staging struct {
	vals [2][]float32
	ev   [2]opencl.Event
	next int
}

// WriteAsync first copies src into host memory the device keeps until the
// write has run (two copies per buffer, used in turn), then enqueues the
// write from there.
func (o *OpenCL) WriteAsync(x backend.Buf, src []float32) error {
	m, err := clBuf("WriteAsync", 0, x.Mem)
	if err != nil {
		return err
	}
	if len(src) != m.Len() {
		return fmt.Errorf("device: opencl: WriteAsync: %d values into a buffer of %d", len(src), m.Len())
	}
	if o.in == nil {
		o.in = map[*opencl.Buffer]*staging{}
	}
	st := o.in[m]
	if st == nil {
		st = &staging{}
		o.in[m] = st
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
	return m.WriteAsync(st.vals[k], 0, &st.ev[k])
}

// pending is a ReadAsync's copy on the device's queue.
type pending struct {
	o  *OpenCL
	ev opencl.Event
}

// Wait waits for the copy where it has not run yet (counted in
// Traffic.Waits).
func (p *pending) Wait() error { return p.o.settle(&p.ev) }

func (o *OpenCL) ReadAsync(dst []float32, x backend.Buf) (backend.Pending, error) {
	m, err := clBuf("ReadAsync", 0, x.Mem)
	if err != nil {
		return nil, err
	}
	if len(dst) > m.Len() {
		return nil, fmt.Errorf("device: opencl: ReadAsync: %d values of a buffer of %d", len(dst), m.Len())
	}
	p := &pending{o: o}
	o.t.BytesOut += 4 * int64(len(dst))
	if err := m.ReadAsync(dst, 0, &p.ev); err != nil {
		return nil, err
	}
	return p, nil
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
