package gx

import (
	"fmt"

	"github.com/attnzoo/attnzoo/internal/device"
)

// Resident keeps parameters in a device's memory for the whole of a run:
// every machine compiled with MachineWith(r) reads a bound parameter from
// r's buffer, never from the host, so a training step moves only its batch
// in and its loss out. A parameter's buffer is filled from the host when a
// machine first needs it, and again after Push; an optimizer that updates
// the buffers in place (Adam, RMSProp, SGD here) leaves the host copy
// behind until Pull. Not safe for concurrent use.
type Resident struct {
	d    device.Kernels
	bufs map[*Param]device.Buffer
	up   map[*Param]bool // buffer holds the host's value
}

// NewResident returns an empty store on d.
func NewResident(d device.Kernels) *Resident {
	return &Resident{d: d, bufs: map[*Param]device.Buffer{}, up: map[*Param]bool{}}
}

// Device is the store's device.
func (r *Resident) Device() device.Kernels { return r.d }

// Buffer is p's buffer on the device, filled from the host value the
// first time and after Push.
func (r *Resident) Buffer(p *Param) (device.Buffer, error) {
	b, ok := r.bufs[p]
	if !ok {
		if p.Value.Dtype() != Float32 {
			return nil, fmt.Errorf("gx: parameter %s is %v; device %s holds float32", p.Name, p.Value.Dtype(), r.d.Name())
		}
		var err error
		if b, err = r.d.Alloc(p.Size()); err != nil {
			return nil, fmt.Errorf("gx: parameter %s %v on %s: %w", p.Name, p.Shape(), r.d.Name(), err)
		}
		r.bufs[p] = b
	}
	if !r.up[p] {
		if err := r.d.Write(b, p.Data32()); err != nil {
			return nil, fmt.Errorf("gx: parameter %s to %s: %w", p.Name, r.d.Name(), err)
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
		if err := r.d.Read(p.Data32(), b); err != nil {
			return fmt.Errorf("gx: parameter %s from %s: %w", p.Name, r.d.Name(), err)
		}
	}
	return nil
}

// Close frees the buffers.
func (r *Resident) Close() error {
	for p, b := range r.bufs {
		r.d.Free(b)
		delete(r.bufs, p)
	}
	clear(r.up)
	return nil
}

// The optimizer kernels (kernels/optim.cl) on resident parameters. Each
// needs a device with the engine's kernels (the OpenCL device).

func (r *Resident) kernels() (kernelRunner, error) {
	k := runner(r.d)
	if k == nil {
		return nil, fmt.Errorf("gx: device %s has no optimizer kernels", r.d.Name())
	}
	return k, nil
}

// SumSquares returns Σ g² of each buffer (the first ns[i] values of gs[i]),
// summed on the device and read back in one transfer of len(gs) values.
func (r *Resident) SumSquares(gs []device.Buffer, ns []int) ([]float64, error) {
	k, err := r.kernels()
	if err != nil {
		return nil, err
	}
	out, err := r.d.Alloc(len(gs))
	if err != nil {
		return nil, err
	}
	defer r.d.Free(out)
	for i, g := range gs {
		if err := k.KernelRows("sum_squares", 1, out, i, g, ns[i]); err != nil {
			return nil, err
		}
	}
	h := make([]float32, len(gs))
	if err := r.d.Read(h, out); err != nil {
		return nil, err
	}
	ss := make([]float64, len(gs))
	for i, v := range h {
		ss[i] = float64(v)
	}
	return ss, nil
}

// update runs an optimizer kernel on p's buffer: (θ, args…, n).
func (r *Resident) update(kernel string, p *Param, args ...any) error {
	k, err := r.kernels()
	if err != nil {
		return err
	}
	b, err := r.Buffer(p)
	if err != nil {
		return err
	}
	return k.Kernel(kernel, p.Size(), append(append([]any{b}, args...), p.Size())...)
}

// SGD is θ ← θ − lr·(scale·g) on p's buffer.
func (r *Resident) SGD(p *Param, g device.Buffer, scale, lr float64) error {
	return r.update("sgd_update", p, g, float32(scale), float32(lr))
}

// RMSProp is v ← ρv + (1−ρ)g²; θ ← θ − lr·g/(√v + ε), g scaled first.
func (r *Resident) RMSProp(p *Param, g, v device.Buffer, scale, lr, rho, eps float64) error {
	return r.update("rmsprop_update", p, g, v, float32(scale), float32(lr), float32(rho), float32(eps))
}

// Adam is Adam32's update (kern/fastmath.go) on p's buffer with float32 moments.
func (r *Resident) Adam(p *Param, g, m, v device.Buffer, a AdamConsts) error {
	return r.update("adam_update", p, g, m, v, float32(a.Scale), float32(a.B1), float32(a.B2),
		float32(a.Step), float32(a.SqrtC2), float32(a.Eps))
}
