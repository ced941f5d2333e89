package seq2seq

import (
	"fmt"
	"github.com/attnzoo/attnzoo/internal/backend"
	"math"

	"github.com/attnzoo/attnzoo/internal/device"
	"github.com/attnzoo/attnzoo/internal/gx"
	"github.com/attnzoo/attnzoo/optimizers"
)

// To makes the model compute on backend be (nil: the cpu's): a host
// backend runs the graphs on the host's arenas through its methods (a test's
// counting wrapper, say); a device backend holds the parameters and runs
// every graph compiled afterwards (UseDevice). The caller closes be after
// moving the model off it (To(nil)).
func (m *Model) To(be backend.Backend) error {
	if be == nil || be.Host() {
		if err := m.UseDevice(nil); err != nil {
			return err
		}
		m.host = be
		return nil
	}
	d, ok := be.(interface{ Device() *device.OpenCL })
	if !ok {
		return fmt.Errorf("seq2seq: backend %s holds values the engine cannot reach (no OpenCL device)", be.Name())
	}
	m.host = nil
	return m.UseDevice(d.Device())
}

// UseDevice moves the model's parameters to device d (nil: back to the
// host, their values read back first). Every graph compiled afterwards runs
// there (gx.MachineWith), and a Trainer updates the parameters in place on
// the device: per step the batch goes in and the loss comes out. The host
// copies are brought up to date by Sync; Save does it itself. Graphs
// compiled before the move still run where they were compiled: use a new
// GraphCache.
func (m *Model) UseDevice(d device.Kernels) error {
	if m.res != nil {
		if err := m.Sync(); err != nil {
			return err
		}
		m.res.Close()
		m.res = nil
	}
	if d == nil {
		return nil
	}
	if m.dt != gx.Float32 {
		return fmt.Errorf("seq2seq: device %s trains float32 models; this one is %v", d.Name(), m.dt)
	}
	m.res = gx.NewResident(d)
	return nil
}

// Device is the device holding the parameters, or nil for the host.
func (m *Model) Device() device.Kernels {
	if m.res == nil {
		return nil
	}
	return m.res.Device()
}

// Sync copies the parameters from the model's device to the host (a no-op
// on the host).
func (m *Model) Sync() error {
	if m.res == nil {
		return nil
	}
	return m.res.Pull()
}

// paramsChanged tells the device that the host values are newer (a
// checkpoint loaded into the model, say).
func (m *Model) paramsChanged() {
	if m.res != nil {
		m.res.Push()
	}
}

// stepDevice is Step with the parameters on a device: the gradients stay in
// the training graph's device buffers, their squared norms come back (one
// value per parameter) for clipping, and the optimizer updates the
// parameters there.
func (t *Trainer) stepDevice(b *Batch) (float64, error) {
	m := t.Model
	tg, loss, err := m.runTrain(b, t.rng, t.Cache)
	if err != nil {
		return 0, err
	}
	if math.IsNaN(loss) || math.IsInf(loss, 0) {
		return loss, fmt.Errorf("seq2seq: loss is %v at step %d", loss, t.Steps+1)
	}
	grads := make([]device.Buffer, len(tg.grads))
	for i, n := range tg.grads {
		if grads[i], err = tg.mach.Buffer(n); err != nil {
			return loss, err
		}
	}
	if err := t.Opt.updateDevice(m.res, m.params, grads); err != nil {
		return loss, err
	}
	t.Steps++
	return loss, nil
}

// deviceMoments are an optimizer's moments on a device, float32.
type deviceMoments struct {
	res  *gx.Resident
	m, v []device.Buffer
}

// free frees the moments' buffers (nothing for nil).
func (dm *deviceMoments) free() {
	if dm == nil {
		return
	}
	d := dm.res.Device()
	for i := range dm.m {
		d.Free(dm.m[i])
		d.Free(dm.v[i])
	}
	dm.m, dm.v = nil, nil
}

// FreeDevice brings the optimizer's moments on a device back to the host
// (State and a later device update start from them) and frees their
// buffers. A run calls it before it closes the device.
func (o *Optimizer) FreeDevice() error {
	if o.dev == nil {
		return nil
	}
	err := o.fromDevice()
	o.dev.free()
	o.dev = nil
	return err
}

// updateDevice is update on a device: the same rule, clip and decay, in
// float32 on the device (the moments too).
func (o *Optimizer) updateDevice(res *gx.Resident, ps []*gx.Param, grads []device.Buffer) error {
	d := res.Device()
	b, ok := d.(interface{ Backend() backend.Backend })
	if !ok {
		return fmt.Errorf("seq2seq: device %s is not a backend", d.Name())
	}
	if o.dev == nil || o.dev.res != res {
		if err := o.toDevice(res, ps); err != nil {
			return err
		}
	}
	slots := make([]optimizers.Slot, len(ps))
	for i, p := range ps {
		pb, err := res.Buffer(p)
		if err != nil {
			return err
		}
		slots[i] = optimizers.Slot{Name: p.Name, N: p.Size(), P: backend.Buf{Mem: pb}, G: backend.Buf{Mem: grads[i]},
			M: backend.Buf{Mem: o.dev.m[i]}, V: backend.Buf{Mem: o.dev.v[i]}}
	}
	return o.step(b.Backend(), slots)
}

// toDevice moves the moments to res's device (zeros where there are none
// yet).
func (o *Optimizer) toDevice(res *gx.Resident, ps []*gx.Param) error {
	d := res.Device()
	dm := &deviceMoments{res: res}
	for i, p := range ps {
		m, err := d.Alloc(p.Size())
		if err != nil {
			return err
		}
		v, err := d.Alloc(p.Size())
		if err != nil {
			return err
		}
		hm, hv := make([]float32, p.Size()), make([]float32, p.Size())
		if o.m != nil {
			for j := range hm {
				hm[j], hv[j] = float32(o.m[i][j]), float32(o.v[i][j])
			}
		}
		if err := d.Write(m, hm); err != nil {
			return err
		}
		if err := d.Write(v, hv); err != nil {
			return err
		}
		dm.m, dm.v = append(dm.m, m), append(dm.v, v)
	}
	o.dev.free()
	o.dev = dm
	return nil
}

// fromDevice reads the moments back into o.m, o.v (for State).
func (o *Optimizer) fromDevice() error {
	if o.dev == nil {
		return nil
	}
	d := o.dev.res.Device()
	if o.m == nil || len(o.m) != len(o.dev.m) {
		o.m, o.v = make([][]float64, len(o.dev.m)), make([][]float64, len(o.dev.m))
	}
	for i := range o.dev.m {
		n := o.dev.m[i].Len()
		hm, hv := make([]float32, n), make([]float32, n)
		if err := d.Read(hm, o.dev.m[i]); err != nil {
			return err
		}
		if err := d.Read(hv, o.dev.v[i]); err != nil {
			return err
		}
		o.m[i], o.v[i] = make([]float64, n), make([]float64, n)
		for j := range hm {
			o.m[i][j], o.v[i][j] = float64(hm[j]), float64(hv[j])
		}
	}
	return nil
}
