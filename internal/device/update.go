package device

import (
	"fmt"
	"strings"

	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/opencl"
)

// Update is a training step's gradient clip and optimizer update on the
// OpenCL device for one model's parameters (their sizes fixed when it is
// made), in three launches a step, with nothing read back but the step's
// loss and norm, and that without waiting:
//
//   - Clip: every gradient's sum of squares in parts of partLen values, one
//     work-group a part, in one launch; then one work-group (clip_finish in
//     kernels/optim.cl) sums the parts in a fixed order (the same bits every
//     run) and puts the loss, the global norm, the clip factor and whether
//     the update applies into a small buffer of the device;
//   - Rules and Apply: the optimizer's rule, run on Rules, is recorded and
//     Apply updates every parameter in one launch, the gradients scaled by
//     the factor read on the device (nothing of it crosses to the host);
//   - Fetch: the loss and the norm come back to host memory without the
//     host waiting; the Pending's Result, asked for at the next step, has
//     them.
//
// The kernels over all parameters are generated for the parameters' sizes
// and built when the Update is made: a kernel takes each parameter's buffers
// as arguments, so a step's launch needs no table of addresses (OpenCL 1.2
// has no pointers into other buffers) and no copy into one flat buffer. A
// device takes a kernel's arguments up to CL_DEVICE_MAX_PARAMETER_SIZE
// bytes (at least 1024): parameters beyond what fits go to further kernels,
// one launch each. Its buffers (the parts and the state) are allocated once.
type Update struct {
	o      *OpenCL
	ns     []int
	chunks []chunk
	prog   *opencl.Program
	parts  backend.Buf // the parts' sums of squares
	nparts int
	st     backend.Buf // [loss, norm, clip factor, applies]

	calls []call // the rule's calls, recorded (Rules)
	args  []any  // a launch's arguments, reused

	out  [2][2]float32 // Fetch's host memory, used in turn
	pend [2]backend.Pending
	gen  [2]uint64
	next int
	n    uint64
}

// chunk is the parameters [a, b) of one generated kernel of each kind, and
// the work-groups it launches.
type chunk struct {
	a, b, groups, base int // base: its first part
	parts              *opencl.Kernel
	update             map[string]*opencl.Kernel // by rule: "sgd", "rmsprop", "adam"
}

// partLen is how many values of a gradient one work-group squares and sums
// (a multiple of every work-group size): enough groups for a GPU's compute
// units at a hidden size of 128 already (a [128, 128] weight is 16 parts).
const partLen = 1024

// ruleArgs are each rule's buffers per parameter and its constants (after
// the state buffer): the kernels' arguments, in order.
var ruleArgs = map[string]struct {
	bufs   []string // "p", "g", "m", "v"
	consts []string
}{
	"sgd":     {[]string{"p", "g"}, []string{"hs", "lr"}},
	"rmsprop": {[]string{"p", "g", "v"}, []string{"hs", "lr", "rho", "omr", "eps"}},
	"adam":    {[]string{"p", "g", "m", "v"}, []string{"hs", "b1", "omb1", "b2", "omb2", "step", "sqrtc2", "eps"}},
}

// NewUpdate builds the clip and update kernels for parameters of sizes ns
// (each ≥ 1) and allocates their buffers (backend.Stepper): the OpenCL
// backend clips and updates a model's parameters in three launches a step.
func (o *OpenCL) NewUpdate(ns []int) (backend.Update, error) {
	// adam's kernel takes the most: the state buffer and 6 floats, then 4
	// buffers a parameter (8 bytes each, a 64-bit device's pointer)
	u, err := o.newUpdate(ns, max(1, (o.c.Device.MaxParameterSize-8-6*4)/(4*8)))
	if err != nil {
		return nil, err // not a nil *Update in an interface
	}
	return u, nil
}

var (
	_ backend.Stepper    = (*OpenCL)(nil)
	_ backend.StepResult = Pending{}
)

// newUpdate is NewUpdate with per parameters to a kernel.
func (o *OpenCL) newUpdate(ns []int, per int) (_ *Update, err error) {
	if len(ns) == 0 {
		return nil, fmt.Errorf("device: opencl: an update of no parameters")
	}
	for i, n := range ns {
		if n < 1 {
			return nil, fmt.Errorf("device: opencl: update: parameter %d has %d values", i, n)
		}
	}
	u := &Update{o: o, ns: append([]int(nil), ns...)}
	defer func() {
		if err != nil {
			u.Close()
		}
	}()
	for a := 0; a < len(ns); a += per {
		c := chunk{a: a, b: min(len(ns), a+per), base: u.nparts}
		for _, n := range ns[c.a:c.b] {
			c.groups += (n + partLen - 1) / partLen
		}
		u.nparts += c.groups
		u.chunks = append(u.chunks, c)
	}
	src, _ := kernelFS.ReadFile("kernels/_reduce.cl")
	optim, _ := kernelFS.ReadFile("kernels/optim.cl")
	gen := string(src) + "\n" + string(optim) + "\n" + u.source()
	if u.prog, err = o.c.Build(gen, fmt.Sprintf("-cl-std=CL1.2 -DWG=%d -DPL=%d", o.c.GroupSize(), partLen)); err != nil {
		return nil, fmt.Errorf("device: building the update kernels of %d parameters for %s: %w", len(ns), o.Name(), err)
	}
	for i := range u.chunks {
		c := &u.chunks[i]
		if c.parts, err = u.prog.Kernel(fmt.Sprintf("parts_%d", i)); err != nil {
			return nil, err
		}
		c.update = map[string]*opencl.Kernel{}
		for rule := range ruleArgs {
			if c.update[rule], err = u.prog.Kernel(fmt.Sprintf("%s_%d", rule, i)); err != nil {
				return nil, err
			}
		}
	}
	if u.parts, err = o.Alloc(u.nparts); err != nil {
		return nil, err
	}
	if u.st, err = o.Alloc(4); err != nil {
		return nil, err
	}
	if err = u.Reset(); err != nil {
		return nil, err
	}
	return u, nil
}

// source is the generated kernels, per chunk i: parts_i(parts, g…) and
// RULE_i(st, consts…, buffers…). Work-group k of a chunk takes part
// k − (the groups of the parameters before it) of its parameter.
func (u *Update) source() string {
	var b strings.Builder
	decl := map[string]string{"p": "__global float *", "g": "__global const float *", "m": "__global float *", "v": "__global float *"}
	for i, c := range u.chunks {
		// pick sets the group's parameter (the pointers named) and its span
		pick := func(names ...string) {
			first := 0
			for j := c.a; j < c.b; j++ {
				groups, cond := (u.ns[j]+partLen-1)/partLen, ""
				if j < c.b-1 {
					cond = fmt.Sprintf("if (grp < %d) ", first+groups)
				}
				if j > c.a {
					cond = "else " + cond
				}
				fmt.Fprintf(&b, "\t%s{", cond)
				for _, n := range names {
					fmt.Fprintf(&b, " %s = %s%d;", n, n, j-c.a)
				}
				fmt.Fprintf(&b, " i0 = (grp - %d) * PL; n = %d; }\n", first, u.ns[j])
				first += groups
			}
		}
		params := func(names ...string) {
			for j := c.a; j < c.b; j++ {
				for _, n := range names {
					fmt.Fprintf(&b, ", %s%s%d", decl[n], n, j-c.a)
				}
			}
			b.WriteString(") {\n")
		}
		fmt.Fprintf(&b, "\n__kernel void parts_%d(__global float *parts", i)
		params("g")
		b.WriteString("\t__local float red[WG];\n\tconst int grp = get_group_id(0);\n\t__global const float *g; int i0, n;\n")
		pick("g")
		b.WriteString("\tconst int end = min(i0 + PL, n);\n\tfloat acc = 0.0f;\n")
		b.WriteString("\tfor (int i = i0 + get_local_id(0); i < end; i += WG) { float x = g[i]; acc += x * x; }\n")
		fmt.Fprintf(&b, "\tacc = red_sum(red, acc);\n\tif (get_local_id(0) == 0) parts[%d + grp] = acc;\n}\n", c.base)
		for _, rule := range []string{"sgd", "rmsprop", "adam"} {
			ra := ruleArgs[rule]
			fmt.Fprintf(&b, "\n__kernel void %s_%d(__global const float *st", rule, i)
			for _, k := range ra.consts {
				fmt.Fprintf(&b, ", const float %s", k)
			}
			params(ra.bufs...)
			b.WriteString("\tif (st[3] == 0.0f) return;\n\tconst float s = hs * st[2];\n\tconst int grp = get_group_id(0);\n\tint i0, n;\n")
			for _, n := range ra.bufs {
				fmt.Fprintf(&b, "\t%s%s;\n", decl[n], n)
			}
			pick(ra.bufs...)
			b.WriteString("\tconst int end = min(i0 + PL, n);\n\tfor (int i = i0 + get_local_id(0); i < end; i += WG) ")
			// kernels/optim.cl's RULE_at(buffers…, i, s, constants but hs…)
			fmt.Fprintf(&b, "%s_at(%s, i, s, %s);\n}\n", rule, strings.Join(ra.bufs, ", "), strings.Join(ra.consts[1:], ", "))
		}
	}
	return b.String()
}

// Launches is how many kernels a step's Clip and Apply launch.
func (u *Update) Launches() int { return 2*len(u.chunks) + 1 }

// Clip enqueues the sums of squares of the gradients gs (the sizes given
// to NewUpdate, in order) and clip_finish: the norm, the clip factor for a
// global norm of clip (0: none) and whether the loss (loss[0]) is finite.
func (u *Update) Clip(gs []backend.Buf, loss backend.Buf, clip float64) error {
	if len(gs) != len(u.ns) {
		return fmt.Errorf("device: opencl: update of %d parameters given %d gradients", len(u.ns), len(gs))
	}
	for i, g := range gs {
		if g.Len() < u.ns[i] {
			return fmt.Errorf("device: opencl: update: gradient %d holds %d values, its parameter %d", i, g.Len(), u.ns[i])
		}
	}
	wg := u.o.c.GroupSize()
	for _, c := range u.chunks {
		args := append(u.args[:0], u.parts.Mem)
		for _, g := range gs[c.a:c.b] {
			args = append(args, g.Mem)
		}
		if err := u.launch(c.parts, c.groups*wg, args); err != nil {
			return err
		}
	}
	return u.o.KernelRows("clip_finish", 1, u.st, u.parts, u.nparts, loss, float32(clip))
}

// launch runs a generated kernel over global work-items in work-groups of
// the device's group size.
func (u *Update) launch(k *opencl.Kernel, global int, args []any) error {
	if err := devArgs(k.Name, args); err != nil {
		return err
	}
	u.args = args[:0]
	u.o.t.Launches++
	wg := u.o.c.GroupSize()
	return k.Launch([]int{global}, []int{wg}, args...)
}

// call is one of a rule's updates, recorded: the rule, a parameter's
// buffers and size, and the kernel's constants.
type call struct {
	rule   string
	bufs   [4]backend.Mem
	n      int
	consts [8]float32
}

// Rules is the backend an optimizer's rule runs on (optimizers.Optimizer's
// Step, with Update.Scale 1: the clip factor is the device's): its SGD,
// RMSProp and Adam record the update of one parameter each, for Apply; the
// rest is the device's backend.
func (u *Update) Rules() backend.Backend {
	u.calls = u.calls[:0]
	return recorder{u.o, u}
}

type recorder struct {
	*OpenCL
	u *Update
}

func (r recorder) SGD(p, g backend.Buf, n int, scale, lr float64) error {
	return r.u.record(call{rule: "sgd", bufs: [4]backend.Mem{p.Mem, g.Mem}, n: n, consts: [8]float32{float32(scale), float32(lr)}})
}

func (r recorder) RMSProp(p, g, v backend.Buf, n int, c backend.RMSPropConsts) error {
	return r.u.record(call{rule: "rmsprop", bufs: [4]backend.Mem{p.Mem, g.Mem, v.Mem}, n: n,
		consts: [8]float32{float32(c.Scale), float32(c.LR), float32(c.Rho), float32(c.OneMinusRho), float32(c.Eps)}})
}

func (r recorder) Adam(p, g, m, v backend.Buf, n int, c backend.AdamConsts) error {
	return r.u.record(call{rule: "adam", bufs: [4]backend.Mem{p.Mem, g.Mem, m.Mem, v.Mem}, n: n,
		consts: [8]float32{float32(c.Scale), float32(c.B1), float32(c.OneMinusB1), float32(c.B2), float32(c.OneMinusB2), float32(c.Step), float32(c.SqrtC2), float32(c.Eps)}})
}

func (u *Update) record(c call) error {
	nb := len(ruleArgs[c.rule].bufs)
	for i, b := range c.bufs[:nb] {
		if b == nil {
			return fmt.Errorf("device: opencl: %s: buffer %d is a host buffer", c.rule, i)
		}
	}
	u.calls = append(u.calls, c)
	return nil
}

// Apply launches the updates the rule recorded on Rules: one for each
// parameter, in order, all of one rule with the same constants (what the
// rules of package optimizers do), as one launch per chunk.
func (u *Update) Apply() error {
	calls := u.calls
	if len(calls) != len(u.ns) {
		return fmt.Errorf("device: opencl: the optimizer updated %d parameters of %d (one update each, in order, is what runs on a device)", len(calls), len(u.ns))
	}
	for i, c := range calls {
		if c.rule != calls[0].rule || c.consts != calls[0].consts || c.n != u.ns[i] {
			return fmt.Errorf("device: opencl: update %d (%s of %d values) differs from the first (%s) or its parameter's size %d: "+
				"a device runs one rule with one set of constants over every parameter", i, c.rule, c.n, calls[0].rule, u.ns[i])
		}
	}
	ra := ruleArgs[calls[0].rule]
	wg := u.o.c.GroupSize()
	for _, ch := range u.chunks {
		args := append(u.args[:0], u.st.Mem)
		for _, k := range calls[0].consts[:len(ra.consts)] {
			args = append(args, k)
		}
		for _, c := range calls[ch.a:ch.b] {
			for _, b := range c.bufs[:len(ra.bufs)] {
				args = append(args, b)
			}
		}
		if err := u.launch(ch.update[calls[0].rule], ch.groups*wg, args); err != nil {
			return err
		}
	}
	u.calls = u.calls[:0]
	return nil
}

// Pending is a step's loss and norm on their way to the host (Fetch).
type Pending struct {
	u   *Update
	k   int
	gen uint64
}

// Fetch enqueues the copy of the last Clip's loss and norm to the host and
// returns at once. At most two Pendings are out at a time: a third Fetch
// waits for the first (Traffic.Waits) and makes its Result an error.
func (u *Update) Fetch() (backend.StepResult, error) {
	k := u.next
	u.next ^= 1
	if err := u.settle(k); err != nil {
		return nil, err
	}
	u.n++
	u.gen[k] = u.n
	p, err := u.o.ReadAsync(u.out[k][:], u.st)
	if err != nil {
		return nil, err
	}
	u.pend[k] = p
	return Pending{u: u, k: k, gen: u.n}, nil
}

// settle waits for Fetch's copy into u.out[k], if one is out.
func (u *Update) settle(k int) error {
	p := u.pend[k]
	if p == nil {
		return nil
	}
	u.pend[k] = nil
	return p.Wait()
}

// Result waits, where the copy has not run yet (Traffic.Waits), and
// returns the step's loss and its gradients' global norm before clipping.
func (p Pending) Result() (loss, norm float64, err error) {
	u := p.u
	if u == nil || u.gen[p.k] != p.gen {
		return 0, 0, fmt.Errorf("device: opencl: a step's loss asked for after two later steps' (at most two are kept)")
	}
	if err := u.settle(p.k); err != nil {
		return 0, 0, err
	}
	return float64(u.out[p.k][0]), float64(u.out[p.k][1]), nil
}

// Reset makes the updates apply again after a non-finite loss stopped
// them (see clip_finish). It waits for the queue.
func (u *Update) Reset() error {
	return u.o.Write(u.st, []float32{0, 0, 1, 1})
}

// Close frees the update's buffers and kernels.
func (u *Update) Close() error {
	for k := range u.pend {
		u.settle(k)
	}
	for _, c := range u.chunks {
		if c.parts != nil {
			c.parts.Release()
		}
		for _, k := range c.update {
			k.Release()
		}
	}
	if u.prog != nil {
		u.prog.Release()
	}
	for _, b := range []backend.Buf{u.parts, u.st} {
		if b.Mem != nil {
			u.o.Free(b)
		}
	}
	return nil
}
