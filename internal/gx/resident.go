package gx

import (
	"fmt"

	"github.com/attnzoo/attnzoo/internal/backend"
)

// Resident keeps parameters in a backend's memory for the whole of a run:
// every machine compiled with MachineWith(r) reads a bound parameter from
// r's buffer, never from the host, so a training step moves only its batch
// in and its loss out. A parameter's buffer is filled from the host when a
// machine first needs it, and again after Push; an optimizer that updates
// the buffers in place (Adam, RMSProp, SGD here) leaves the host copy
// behind until Pull. Not safe for concurrent use.
type Resident struct {
	be   backend.Backend
	bufs map[*Param]backend.Buf
	up   map[*Param]bool // buffer holds the host's value
}

// NewResident returns an empty store on be.
func NewResident(be backend.Backend) *Resident {
	return &Resident{be: be, bufs: map[*Param]backend.Buf{}, up: map[*Param]bool{}}
}

// Backend is the store's backend.
func (r *Resident) Backend() backend.Backend { return r.be }

// Buffer is p's buffer in the backend's memory, filled from the host value
// the first time and after Push.
func (r *Resident) Buffer(p *Param) (backend.Buf, error) {
	b, ok := r.bufs[p]
	if !ok {
		if p.Value.Dtype() != Float32 {
			return backend.Buf{}, fmt.Errorf("gx: parameter %s is %v; device %s holds float32", p.Name, p.Value.Dtype(), r.be.Name())
		}
		var err error
		if b, err = r.be.Alloc(p.Size()); err != nil {
			return backend.Buf{}, fmt.Errorf("gx: parameter %s %v on %s: %w", p.Name, p.Shape(), r.be.Name(), err)
		}
		r.bufs[p] = b
	}
	if !r.up[p] {
		if err := r.be.Write(b, p.Data32()); err != nil {
			return backend.Buf{}, fmt.Errorf("gx: parameter %s to %s: %w", p.Name, r.be.Name(), err)
		}
		r.up[p] = true
	}
	return b, nil
}

// Push marks every host value as newer than the device's: each parameter
// is written again when next used.
func (r *Resident) Push() { clear(r.up) }

// Pull copies every parameter the device holds back to the host.
func (r *Resident) Pull() error {
	for p, b := range r.bufs {
		if !r.up[p] {
			continue // the host is newer
		}
		if err := r.be.Read(p.Data32(), b); err != nil {
			return fmt.Errorf("gx: parameter %s from %s: %w", p.Name, r.be.Name(), err)
		}
	}
	return nil
}

// Close frees the buffers.
func (r *Resident) Close() error {
	for p, b := range r.bufs {
		r.be.Free(b)
		delete(r.bufs, p)
	}
	clear(r.up)
	return nil
}
