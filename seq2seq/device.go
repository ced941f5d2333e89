package seq2seq

import (
	"fmt"
	"math"

	"github.com/attnzoo/attnzoo/internal/backend"
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
	m.host = nil
	return m.UseDevice(be)
}

// UseDevice moves the model's parameters to the memory of backend be (nil:
// back to the host, their values read back first). Every graph compiled afterwards runs
// there (gx.MachineWith), and a Trainer updates the parameters in place on
// the device: per step the batch goes in and the loss comes out. The host
// copies are brought up to date by Sync; Save does it itself. Graphs
// compiled before the move still run where they were compiled: use a new
// GraphCache.
func (m *Model) UseDevice(be backend.Backend) error {
	if m.res != nil {
		if err := m.Sync(); err != nil {
			return err
		}
		m.res.Close()
		m.res = nil
	}
	if be == nil {
		return nil
	}
	if m.dt != gx.Float32 {
		return fmt.Errorf("seq2seq: device %s trains float32 models; this one is %v", be.Name(), m.dt)
	}
	m.res = gx.NewResident(be)
	return nil
}

// Device is the backend holding the parameters, or nil for the host.
func (m *Model) Device() backend.Backend {
	if m.res == nil {
		return nil
	}
	return m.res.Backend()
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

// deviceSteps is a Trainer's state on a device: the last pushed step
// whose loss is on its way, and a step's gradient buffers (reused).
type deviceSteps struct {
	late  lateLoss
	grads []backend.Buf
}

// lateLoss is a pushed step's loss on its way to the host.
type lateLoss struct {
	out  bool
	p    backend.StepResult
	step int
	rate float64
}

// stepDevice is Step with the parameters on a device: Push, then Flush for
// this step's loss.
func (t *Trainer) stepDevice(b *Batch) (float64, error) {
	if _, _, err := t.Flush(); err != nil { // a step Push left out
		return 0, err
	}
	if _, _, err := t.pushDevice(b); err != nil {
		return 0, err
	}
	l, _, err := t.Flush()
	return l.Loss, err
}

// pushDevice is Push with the parameters on a device: the step's inputs
// go in, its graph, the clip and the update are enqueued (the gradients
// stay in the training graph's device buffers; a backend.Stepper computes
// the clip factor there too), and the copy of its loss and norm to the host;
// then the host waits for the step before, whose loss it returns.
func (t *Trainer) pushDevice(b *Batch) (StepLoss, bool, error) {
	m := t.Model
	tg, err := m.runTrainGraph(b, t.rng, t.Cache)
	if err != nil {
		return StepLoss{}, false, err
	}
	if len(t.dev.grads) != len(tg.grads) {
		t.dev.grads = make([]backend.Buf, len(tg.grads))
	}
	grads := t.dev.grads
	for i, n := range tg.grads {
		if grads[i], err = tg.mach.Buffer(n); err != nil {
			return StepLoss{}, false, err
		}
	}
	loss, err := tg.mach.Buffer(tg.cost)
	if err != nil {
		return StepLoss{}, false, err
	}
	if err := t.Opt.updateDevice(m.res, m.params, grads, loss); err != nil {
		return StepLoss{}, false, err
	}
	p, err := t.Opt.dev.up.Fetch()
	if err != nil {
		return StepLoss{}, false, err
	}
	t.Steps++
	prev := t.dev.late
	t.dev.late = lateLoss{out: true, p: p, step: t.Steps, rate: t.Opt.Rate()}
	if !prev.out {
		return StepLoss{}, false, nil
	}
	return t.collect(prev, 1)
}

// flushDevice is Flush.
func (t *Trainer) flushDevice() (StepLoss, bool, error) {
	if !t.dev.late.out {
		return StepLoss{}, false, nil
	}
	l := t.dev.late
	t.dev.late.out = false
	return t.collect(l, 0)
}

// collect waits for step l's loss, after which later steps were pushed. A
// NaN or infinite loss stopped the device's updates from l's step on
// (clip_finish): those steps are taken back and the updates made to apply
// again.
func (t *Trainer) collect(l lateLoss, later int) (StepLoss, bool, error) {
	loss, norm, err := l.p.Result()
	if err != nil {
		return StepLoss{}, false, err
	}
	if math.IsNaN(loss) || math.IsInf(loss, 0) {
		t.Steps -= 1 + later
		t.Opt.t -= 1 + later
		t.dev.late.out = false
		if err := t.Opt.dev.up.Reset(); err != nil {
			return StepLoss{}, false, err
		}
		return StepLoss{Step: l.step, Loss: loss, Rate: l.rate}, true, &LossError{Step: l.step, Loss: loss}
	}
	t.Opt.LastNorm = norm
	return StepLoss{Step: l.step, Loss: loss, Rate: l.rate}, true, nil
}

// deviceMoments are an optimizer's moments on a device, float32, and its
// clip and update there.
type deviceMoments struct {
	res  *gx.Resident
	m, v []backend.Buf
	up   backend.Update
}

// free frees the moments' buffers and the update's (nothing for nil).
func (dm *deviceMoments) free() {
	if dm == nil {
		return
	}
	d := dm.res.Backend()
	for i := range dm.m {
		d.Free(dm.m[i])
		d.Free(dm.v[i])
	}
	dm.m, dm.v = nil, nil
	if dm.up != nil {
		dm.up.Close()
		dm.up = nil
	}
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
// float32 on the device (the moments too), through the backend's
// backend.Update (the update changes nothing after a non-finite loss).
func (o *Optimizer) updateDevice(res *gx.Resident, ps []*gx.Param, grads []backend.Buf, loss backend.Buf) error {
	if o.dev == nil || o.dev.res != res {
		if err := o.toDevice(res, ps); err != nil {
			return err
		}
	}
	if len(o.slots) != len(ps) {
		o.slots = make([]optimizers.Slot, len(ps))
	}
	slots := o.slots
	for i, p := range ps {
		pb, err := res.Buffer(p)
		if err != nil {
			return err
		}
		slots[i] = optimizers.Slot{Name: p.Name, N: p.Size(), P: pb, G: grads[i], M: o.dev.m[i], V: o.dev.v[i]}
	}
	up := o.dev.up
	if err := up.Clip(grads, loss, o.Clip); err != nil {
		return fmt.Errorf("seq2seq: gradient norm on %s: %w", res.Backend().Name(), err)
	}
	if err := o.rule.Step(o.advance(1), up.Rules(), slots); err != nil {
		return err
	}
	return up.Apply()
}

// toDevice moves the moments to res's device (zeros where there are none
// yet).
func (o *Optimizer) toDevice(res *gx.Resident, ps []*gx.Param) error {
	d := res.Backend()
	ns := make([]int, len(ps))
	for i, p := range ps {
		ns[i] = p.Size()
	}
	var up backend.Update = &opsUpdate{be: d, ns: ns, sums: make([]float64, len(ns)), applies: true}
	if st, ok := d.(backend.Stepper); ok {
		var err error
		if up, err = st.NewUpdate(ns); err != nil {
			return err
		}
	}
	dm := &deviceMoments{res: res, up: up}
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
	d := o.dev.res.Backend()
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

// opsUpdate is a step's clip and update made of the backend's Optim
// methods, for a device backend that is no backend.Stepper: Clip reads the
// loss back and sums the gradients' squares (SumSquares; the host waits for
// both), and the norm and the clip factor are the host's (update's, the
// same float64 arithmetic); the rule then runs the backend's own SGD,
// RMSProp or Adam on each parameter with that factor. Its Fetch has the
// loss and norm already.
type opsUpdate struct {
	be      backend.Backend
	ns      []int
	sums    []float64
	loss    [1]float32
	norm    float64
	scale   float64
	applies bool // every loss since the last Reset was finite
}

func (u *opsUpdate) Clip(gs []backend.Buf, loss backend.Buf, clip float64) error {
	if len(gs) != len(u.ns) {
		return fmt.Errorf("an update of %d parameters given %d gradients", len(u.ns), len(gs))
	}
	p, err := u.be.ReadAsync(u.loss[:], loss)
	if err != nil {
		return err
	}
	if err := p.Wait(); err != nil {
		return err
	}
	if err := u.be.SumSquares(gs, u.ns, u.sums); err != nil {
		return err
	}
	var ss float64
	for _, s := range u.sums { // in order, as step sums them
		ss += s
	}
	u.norm = math.Sqrt(ss)
	u.scale = ClipScale(clip, u.norm)
	l := float64(u.loss[0])
	u.applies = u.applies && !math.IsNaN(l) && !math.IsInf(l, 0)
	return nil
}

// Rules is the backend with the clip factor on each rule's scale, its
// updates skipped after a non-finite loss.
func (u *opsUpdate) Rules() backend.Backend { return clipped{u.be, u} }

func (u *opsUpdate) Apply() error { return nil }

func (u *opsUpdate) Fetch() (backend.StepResult, error) {
	return stepResult{float64(u.loss[0]), u.norm}, nil
}

func (u *opsUpdate) Reset() error { u.applies = true; return nil }
func (u *opsUpdate) Close() error { return nil }

// stepResult is a step's loss and norm, at hand.
type stepResult struct{ loss, norm float64 }

func (r stepResult) Result() (float64, float64, error) { return r.loss, r.norm, nil }

// clipped is opsUpdate's Rules.
type clipped struct {
	backend.Backend
	u *opsUpdate
}

func (c clipped) SGD(p, g backend.Buf, n int, scale, lr float64) error {
	if !c.u.applies {
		return nil
	}
	return c.Backend.SGD(p, g, n, scale*c.u.scale, lr)
}

func (c clipped) RMSProp(p, g, v backend.Buf, n int, k backend.RMSPropConsts) error {
	if !c.u.applies {
		return nil
	}
	k.Scale *= c.u.scale
	return c.Backend.RMSProp(p, g, v, n, k)
}

func (c clipped) Adam(p, g, m, v backend.Buf, n int, k backend.AdamConsts) error {
	if !c.u.applies {
		return nil
	}
	k.Scale *= c.u.scale
	return c.Backend.Adam(p, g, m, v, n, k)
}
