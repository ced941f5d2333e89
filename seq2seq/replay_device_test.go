package seq2seq

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/backend/cpu"
)

// Replay is a device backend that checks each of its computations against
// the cpu backend's on the same inputs: before a call it reads back every
// buffer the call names (the values the device computes from), runs the
// device, reads back the outputs, runs the cpu's method of the same name on
// host copies of the inputs and compares every output value with the
// primitive's derived bound (bounds.go). It declares the fused ops the
// device and the cpu both declare; the device's AdditiveDeltaSum, which
// the cpu has not, it checks against the cpu's AdditiveDelta then SumMid.
// The machine runs a graph's steps on it as on the device itself (one
// machine loop): every primitive of every step is checked.
type Replay struct {
	backend.Backend // the device's
	t               testing.TB
	host            *cpu.CPU
	worst           map[string]float64 // per primitive: the largest |dev − cpu| / bound
	calls           map[string]int
	unchecked       map[string]int // primitives the device ran that have no bound here
	fails           int
	// Fault, where set, changes the device's values of each output (j, its
	// index among the call's buffers) as read back, before they are
	// compared: a test of the checker itself.
	Fault func(name string, j int, dev []float32)
}

// NewReplay wraps the device backend dev; failures go to t.
func NewReplay(t testing.TB, dev backend.Backend) *Replay {
	return &Replay{Backend: dev, t: t, host: cpu.New(), worst: map[string]float64{}, calls: map[string]int{}, unchecked: map[string]int{}}
}

// boundFn is the bound on |dev − cpu| of value i of output buffer j (its
// index among the call's buffers), from the values in (by buffer) the call
// read and the cpu's outputs out.
type boundFn func(in, out [][]float32, j, i int) float64

// op runs one primitive on both backends. bufs are the buffers it names,
// outs the indexes of those it writes; run calls the primitive of be on
// buffers standing for bufs (the device's, then host copies; one copy per
// device buffer, so an output that is also an operand stays one).
func (w *Replay) op(name string, bufs []backend.Buf, outs []int, run func(be backend.Backend, b []backend.Buf) error, bound boundFn) error {
	w.calls[name]++
	if bound == nil {
		w.unchecked[name]++
		return run(w.Backend, bufs)
	}
	in := make([][]float32, len(bufs))
	seen := map[backend.Mem]int{}
	for j, b := range bufs {
		if b.Mem == nil || b.Len() == 0 {
			continue
		}
		if k, ok := seen[b.Mem]; ok {
			in[j] = in[k]
			continue
		}
		seen[b.Mem] = j
		in[j] = make([]float32, b.Len())
		if err := w.Backend.Read(in[j], b); err != nil {
			return err
		}
	}
	if err := run(w.Backend, bufs); err != nil {
		return err
	}
	dev := make([][]float32, len(bufs))
	for _, j := range outs {
		dev[j] = make([]float32, bufs[j].Len())
		if err := w.Backend.Read(dev[j], bufs[j]); err != nil {
			return err
		}
		if w.Fault != nil {
			w.Fault(name, j, dev[j])
		}
	}
	hb := make([]backend.Buf, len(bufs))
	out := make([][]float32, len(bufs))
	copied := map[int][]float32{}
	for j := range bufs {
		if in[j] == nil {
			continue
		}
		k := seen[bufs[j].Mem]
		if copied[k] == nil {
			copied[k] = append([]float32(nil), in[j]...)
		}
		out[j] = copied[k]
		hb[j] = backend.Host(out[j])
	}
	if err := run(w.host, hb); err != nil {
		return fmt.Errorf("%s on the cpu: %w", name, err)
	}
	worst := w.worst[name]
	for _, j := range outs {
		for i, d := range dev[j] {
			c := out[j][i]
			if d == c || math.IsNaN(float64(d)) && math.IsNaN(float64(c)) {
				continue // the same value: within any bound (and past n: not written)
			}
			e := bound(in, out, j, i)
			if math.IsInf(e, 1) {
				continue // not written as an output by this call (its bound says so): any value, NaN included
			}
			diff := math.Abs(float64(d) - float64(c))
			if !(diff <= e) {
				if w.fails < 20 {
					w.t.Errorf("%s: output %d [%d] = %v on the device, %v on the cpu: |Δ| %.3g above the bound %.3g", name, j, i, d, c, diff, e)
				}
				w.fails++
			}
			if e > 0 && diff/e > worst {
				worst = diff / e
			}
		}
	}
	w.worst[name] = worst
	return nil
}

// Report logs the worst |Δ|/bound per primitive and fails the test for
// each primitive the device ran that has no bound here.
func (w *Replay) Report(t testing.TB) {
	var names []string
	for n := range w.calls {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		if w.unchecked[n] > 0 {
			fmt.Fprintf(&b, "\n  %-16s %5d calls  UNCHECKED", n, w.calls[n])
			continue
		}
		fmt.Fprintf(&b, "\n  %-16s %5d calls  worst |Δ|/bound %.3g", n, w.calls[n], w.worst[n])
	}
	t.Logf("device against the cpu, primitive by primitive:%s", b.String())
	for _, n := range names {
		if c := w.unchecked[n]; c > 0 {
			t.Errorf("%s: %d calls with no derived bound", n, c)
		}
	}
}

// The abilities a graph looks for (backend.Fuser, Sited, Viewer,
// FusedAttention), passed on to the device.
func (w *Replay) Fuses(op string) bool {
	return backend.Fuses(w.Backend, op) && w.host.Fuses(op)
}
func (w *Replay) NewSite() backend.Site { return w.Backend.(backend.Sited).NewSite() }
func (w *Replay) At(s backend.Site)     { w.Backend.(backend.Sited).At(s) }
func (w *Replay) ViewAt(off int) bool   { return w.Backend.(backend.Viewer).ViewAt(off) }
func (w *Replay) View(x backend.Buf, off, n int) (backend.Buf, error) {
	return w.Backend.(backend.Viewer).View(x, off, n)
}

// mat is m with its buffer b.
func mat(m backend.Mat, b backend.Buf) backend.Mat { m.Buf = b; return m }

func (w *Replay) Map(f backend.Fn, y, x backend.Buf, n int) error {
	return w.op("Map."+f.String(), []backend.Buf{y, x}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.Map(f, b[0], b[1], n) }, mapBound(f, n))
}
func (w *Replay) MapGrad(f backend.Fn, dx, y, g backend.Buf, n int) error {
	return w.op("MapGrad."+f.String(), []backend.Buf{dx, y, g}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.MapGrad(f, b[0], b[1], b[2], n) }, mapGradBound(f, n))
}
func (w *Replay) Add(y, a, b backend.Buf, n int) error {
	return w.op("Add", []backend.Buf{y, a, b}, []int{0}, func(be backend.Backend, x []backend.Buf) error { return be.Add(x[0], x[1], x[2], n) }, elementwise(n, func(in [][]float32, i int) float64 { return float64(in[1][i]) + float64(in[2][i]) }))
}
func (w *Replay) Sub(y, a, b backend.Buf, n int) error {
	return w.op("Sub", []backend.Buf{y, a, b}, []int{0}, func(be backend.Backend, x []backend.Buf) error { return be.Sub(x[0], x[1], x[2], n) }, elementwise(n, func(in [][]float32, i int) float64 { return float64(in[1][i]) - float64(in[2][i]) }))
}
func (w *Replay) Mul(y, a, b backend.Buf, n int) error {
	return w.op("Mul", []backend.Buf{y, a, b}, []int{0}, func(be backend.Backend, x []backend.Buf) error { return be.Mul(x[0], x[1], x[2], n) }, elementwise(n, func(in [][]float32, i int) float64 { return float64(in[1][i]) * float64(in[2][i]) }))
}
func (w *Replay) Fill(y backend.Buf, v float64, n int) error {
	return w.op("Fill", []backend.Buf{y}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.Fill(b[0], v, n) }, exact)
}
func (w *Replay) DropoutMask(y backend.Buf, seed uint64, p float64, n int) error {
	return w.op("DropoutMask", []backend.Buf{y}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.DropoutMask(b[0], seed, p, n) }, dropoutBound(p, n))
}
func (w *Replay) Scale(y, x backend.Buf, alpha float64, n int) error {
	return w.op("Scale", []backend.Buf{y, x}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.Scale(b[0], b[1], alpha, n) }, scaleBound(alpha, n))
}
func (w *Replay) Gemm(m, n, k int, alpha float64, a, b backend.Mat, beta float64, c backend.Mat) error {
	return w.op("Gemm", []backend.Buf{c.Buf, a.Buf, b.Buf}, []int{0}, func(be backend.Backend, x []backend.Buf) error {
		return be.Gemm(m, n, k, alpha, mat(a, x[1]), mat(b, x[2]), beta, mat(c, x[0]))
	}, gemmBound(m, n, k, alpha, a, 0, b, 0, beta, c, 0, 1))
}
func (w *Replay) BiasAdd(y, x, b backend.Buf, rows, n int) error {
	return w.op("BiasAdd", []backend.Buf{y, x, b}, []int{0}, func(be backend.Backend, v []backend.Buf) error { return be.BiasAdd(v[0], v[1], v[2], rows, n) }, elementwise(n, func(in [][]float32, i int) float64 { return float64(in[1][i]) + float64(in[2][i%n]) }))
}
func (w *Replay) SumMid(y, x backend.Buf, B, S, n int) error {
	return w.op("SumMid", []backend.Buf{y, x}, []int{0}, func(be backend.Backend, v []backend.Buf) error { return be.SumMid(v[0], v[1], B, S, n) }, sumMidBound(B, S, n))
}
func (w *Replay) MatVec(m, n int, a backend.Mat, x, y backend.Buf, acc bool) error {
	return w.op("MatVec", []backend.Buf{y, a.Buf, x}, []int{0}, func(be backend.Backend, v []backend.Buf) error { return be.MatVec(m, n, mat(a, v[1]), v[2], v[0], acc) }, matVecBound(m, n, a, acc))
}
func (w *Replay) Bmv(y, X, v backend.Buf, B, S, D, h int, c float64) error {
	return w.op("Bmv", []backend.Buf{y, X, v}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.Bmv(b[0], b[1], b[2], B, S, D, h, c) }, bmvBound(B, S, D, h, c))
}
func (w *Replay) WSum(y, wt, X backend.Buf, B, S, D, h int, c float64) error {
	return w.op("WSum", []backend.Buf{y, wt, X}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.WSum(b[0], b[1], b[2], B, S, D, h, c) }, wsumBound(B, S, D, h, c))
}
func (w *Replay) Outer(y, wt, v backend.Buf, B, S, D, h int, c float64, acc bool) error {
	return w.op("Outer", []backend.Buf{y, wt, v}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.Outer(b[0], b[1], b[2], B, S, D, h, c, acc) }, outerBound(B, S, D, h, c, acc))
}
func (w *Replay) GroupSum(y, x backend.Buf, B, S, h int, c float64) error {
	return w.op("GroupSum", []backend.Buf{y, x}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.GroupSum(b[0], b[1], B, S, h, c) }, groupSumBound(B, S, h, c))
}
func (w *Replay) RepeatRows(y, x backend.Buf, B, S, h int, c float64) error {
	return w.op("RepeatRows", []backend.Buf{y, x}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.RepeatRows(b[0], b[1], B, S, h, c) }, repeatRowsBound(B, S, h, c))
}
func (w *Replay) AddTanh(y, P, u, c backend.Buf, B, S, A int) error {
	return w.op("AddTanh", []backend.Buf{y, P, u, c}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.AddTanh(b[0], b[1], b[2], b[3], B, S, A) }, addTanhBound(S, A))
}
func (w *Replay) AdditiveDelta(y, T, v, g backend.Buf, N, A int, acc bool) error {
	return w.op("AdditiveDelta", []backend.Buf{y, T, v, g}, []int{0}, func(be backend.Backend, b []backend.Buf) error {
		return be.AdditiveDelta(b[0], b[1], b[2], b[3], N, A, acc)
	}, additiveDeltaBound(N, A, acc))
}
func (w *Replay) Attend(a backend.Attend) error {
	return w.op("Attend", []backend.Buf{a.Out, a.Mask, a.H, a.P, a.U, a.C, a.V, a.X, a.Q, a.Score}, []int{0}, func(be backend.Backend, b []backend.Buf) error {
		a.Out, a.Mask, a.H, a.P, a.U, a.C, a.V, a.X, a.Q, a.Score = b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9]
		return be.(backend.FusedAttention).Attend(a)
	}, attendBound(a))
}
func (w *Replay) AttendBack(a backend.AttendBack) error {
	f := a.F
	outs := []int{0, 1}
	if a.DH.Len() > 0 { // ∂H added into the values' sum
		outs = append(outs, 13)
	}
	if a.Keys.Len() > 0 { // the key-side gradient added into its sum
		outs = append(outs, 14)
	}
	return w.op("AttendBack", []backend.Buf{a.Out, a.DW, a.G, f.Out, f.Mask, f.H, f.P, f.U, f.C, f.V, f.X, f.Q, f.Score, a.DH, a.Keys}, outs, func(be backend.Backend, b []backend.Buf) error {
		a.Out, a.DW, a.G = b[0], b[1], b[2]
		a.F.Out, a.F.Mask, a.F.H, a.F.P, a.F.U, a.F.C, a.F.V, a.F.X, a.F.Q, a.F.Score = b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12]
		a.DH, a.Keys = b[13], b[14]
		return be.(backend.FusedAttention).AttendBack(a)
	}, attendBackBound(a))
}
func (w *Replay) AttendSums(a backend.AttendSums) error {
	outs := []int{0}
	if a.DC.Len() > 0 {
		outs = append(outs, 5)
	}
	return w.op("AttendSums", []backend.Buf{a.DV, a.Work, a.T, a.DS, a.DU, a.DC}, outs, func(be backend.Backend, b []backend.Buf) error {
		a.DV, a.Work, a.T, a.DS, a.DU, a.DC = b[0], b[1], b[2], b[3], b[4], b[5]
		return be.(backend.FusedAttention).AttendSums(a)
	}, attendSumsBound(a))
}
func (w *Replay) MaskedSoftmax(y, x, mask backend.Buf, rows, cols int) error {
	return w.op("MaskedSoftmax", []backend.Buf{y, x, mask}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.MaskedSoftmax(b[0], b[1], b[2], rows, cols) }, maskedSoftmaxBound(cols))
}
func (w *Replay) SoftmaxGrad(dx, y, g backend.Buf, rows, cols int) error {
	return w.op("SoftmaxGrad", []backend.Buf{dx, y, g}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.SoftmaxGrad(b[0], b[1], b[2], rows, cols) }, softmaxGradBound(cols))
}
func (w *Replay) MaskFill(y, x, mask backend.Buf, v float64, n int) error {
	return w.op("MaskFill", []backend.Buf{y, x, mask}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.MaskFill(b[0], b[1], b[2], v, n) }, exact)
}
func (w *Replay) LogSoftmax(y, z backend.Buf, rows, cols int) error {
	return w.op("LogSoftmax", []backend.Buf{y, z}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.LogSoftmax(b[0], b[1], rows, cols) }, logSoftmaxBound(cols))
}
func (w *Replay) SoftmaxXent(out, loss, z, t, m, eps backend.Buf, c float64, rows, cols int) error {
	return w.op("SoftmaxXent", []backend.Buf{out, loss, z, t, m, eps}, []int{0, 1}, func(be backend.Backend, b []backend.Buf) error {
		return be.SoftmaxXent(b[0], b[1], b[2], b[3], b[4], b[5], c, rows, cols)
	}, xentBound(eps, c, rows, cols))
}
func (w *Replay) SoftmaxXentGrad(dz, z, t, m, eps, g backend.Buf, c float64, rows, cols int) error {
	return w.op("SoftmaxXentGrad", []backend.Buf{dz, z, t, m, eps, g}, []int{0}, func(be backend.Backend, b []backend.Buf) error {
		return be.SoftmaxXentGrad(b[0], b[1], b[2], b[3], b[4], b[5], c, rows, cols)
	}, xentGradBound(eps, c, rows, cols))
}
func (w *Replay) Argmax(out, x backend.Buf, rows, cols int) error {
	return w.op("Argmax", []backend.Buf{out, x}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.Argmax(b[0], b[1], rows, cols) }, exact)
}
func (w *Replay) L2Norm(y, x backend.Buf, eps float64, rows, cols int) error {
	return w.op("L2Norm", []backend.Buf{y, x}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.L2Norm(b[0], b[1], eps, rows, cols) }, l2NormBound(eps, rows, cols))
}
func (w *Replay) L2Grad(dx, x, g backend.Buf, eps float64, rows, cols int) error {
	return w.op("L2Grad", []backend.Buf{dx, x, g}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.L2Grad(b[0], b[1], b[2], eps, rows, cols) }, l2GradBound(eps, rows, cols))
}
func (w *Replay) ScaleBy(y, x, gamma backend.Buf, n int) error {
	return w.op("ScaleBy", []backend.Buf{y, x, gamma}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.ScaleBy(b[0], b[1], b[2], n) }, elementwise(n, func(in [][]float32, i int) float64 { return float64(in[2][0]) * float64(in[1][i]) }))
}
func (w *Replay) Dot(out, a, b backend.Buf, n int) error {
	return w.op("Dot", []backend.Buf{out, a, b}, []int{0}, func(be backend.Backend, x []backend.Buf) error { return be.Dot(x[0], x[1], x[2], n) }, dotBound(n))
}
func (w *Replay) Copy2D(dst backend.Buf, dOff, dLd int, src backend.Buf, sOff, sLd, rows, cols int) error {
	return w.op("Copy2D", []backend.Buf{dst, src}, []int{0}, func(be backend.Backend, b []backend.Buf) error {
		return be.Copy2D(b[0], dOff, dLd, b[1], sOff, sLd, rows, cols)
	}, exact)
}
func (w *Replay) Stack(dst backend.Buf, xs []backend.Buf, n int) error {
	return w.op("Stack", append([]backend.Buf{dst}, xs...), []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.Stack(b[0], b[1:], n) }, exact)
}
func (w *Replay) Embed(out, E, ids backend.Buf, V, D, N int) error {
	return w.op("Embed", []backend.Buf{out, E, ids}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.Embed(b[0], b[1], b[2], V, D, N) }, exact)
}
func (w *Replay) EmbedGrad(dE, g, ids backend.Buf, V, D, N int, acc bool) error {
	return w.op("EmbedGrad", []backend.Buf{dE, g, ids}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.EmbedGrad(b[0], b[1], b[2], V, D, N, acc) }, embedGradBound(D, N, acc))
}
func (w *Replay) Im2Col(out, x backend.Buf, geo backend.ConvGeom, B, C int) error {
	return w.op("Im2Col", []backend.Buf{out, x}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.Im2Col(b[0], b[1], geo, B, C) }, exact)
}
func (w *Replay) Col2Im(out, g backend.Buf, geo backend.ConvGeom, B, C int) error {
	return w.op("Col2Im", []backend.Buf{out, g}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.Col2Im(b[0], b[1], geo, B, C) }, col2ImBound(geo, B, C))
}
func (w *Replay) GRUGates(gates backend.Buf, xs []backend.Buf, hh, b, bhn, tmp backend.Buf, B, H int) error {
	return w.op("GRUGates", append([]backend.Buf{gates, tmp, hh, b, bhn}, xs...), []int{0}, func(be backend.Backend, v []backend.Buf) error {
		return be.GRUGates(v[0], v[5:], v[2], v[3], v[4], v[1], B, H)
	}, gruGatesBound(len(xs), B, H))
}
func (w *Replay) GRUGatesBack(out, gates, g backend.Buf, B, H int, dh bool) error {
	return w.op("GRUGatesBack", []backend.Buf{out, gates, g}, []int{0}, func(be backend.Backend, v []backend.Buf) error { return be.GRUGatesBack(v[0], v[1], v[2], B, H, dh) }, gruGatesBackBound(B, H, dh))
}
func (w *Replay) GRUBlend(out, gates, h backend.Buf, B, H int) error {
	return w.op("GRUBlend", []backend.Buf{out, gates, h}, []int{0}, func(be backend.Backend, v []backend.Buf) error { return be.GRUBlend(v[0], v[1], v[2], B, H) }, gruBlendBound(B, H))
}
func (w *Replay) GRUBlendDG(out, gates, h, g backend.Buf, B, H int) error {
	return w.op("GRUBlendDG", []backend.Buf{out, gates, h, g}, []int{0}, func(be backend.Backend, v []backend.Buf) error { return be.GRUBlendDG(v[0], v[1], v[2], v[3], B, H) }, gruBlendDGBound(B, H))
}
func (w *Replay) GRUBlendDH(out, gates, g backend.Buf, B, H int, acc bool) error {
	return w.op("GRUBlendDH", []backend.Buf{out, gates, g}, []int{0}, func(be backend.Backend, v []backend.Buf) error { return be.GRUBlendDH(v[0], v[1], v[2], B, H, acc) }, gruBlendDHBound(B, H, acc))
}
func (w *Replay) ColSums(y backend.Buf, yOff int, x backend.Buf, xOff, ld, rows, cols int, acc bool) error {
	return w.op("ColSums", []backend.Buf{y, x}, []int{0}, func(be backend.Backend, v []backend.Buf) error {
		return be.ColSums(v[0], yOff, v[1], xOff, ld, rows, cols, acc)
	}, colSums(yOff, xOff, ld, rows, cols, acc))
}
func (w *Replay) GRUSeq(out, xw backend.Buf, u backend.Mat, b, bhn, h0, keep backend.Buf, B, S, H int, reverse bool, hh, ut backend.Buf) error {
	return w.op("GRUSeq", []backend.Buf{out, hh, ut, xw, u.Buf, b, bhn, h0, keep}, []int{0}, func(be backend.Backend, v []backend.Buf) error {
		return be.GRUSeq(v[0], v[3], mat(u, v[4]), v[5], v[6], v[7], v[8], B, S, H, reverse, v[1], v[2])
	}, gruSeqBound(u, B, S, H, reverse))
}
func (w *Replay) GRUSeqBack(dxi, dhh, hprev, carry backend.Buf, fwd, gr backend.Buf, u backend.Mat, h0, keep backend.Buf, B, S, H int, reverse bool, dhp backend.Buf) error {
	return w.op("GRUSeqBack", []backend.Buf{dxi, dhh, hprev, carry, dhp, fwd, gr, u.Buf, h0, keep}, []int{0, 1, 2, 3}, func(be backend.Backend, v []backend.Buf) error {
		return be.GRUSeqBack(v[0], v[1], v[2], v[3], v[5], v[6], mat(u, v[7]), v[8], v[9], B, S, H, reverse, v[4])
	}, gruSeqBackBound(u, B, S, H, reverse))
}

// SumSquares: the sums go to the host (out), so the check is its own:
// the device's float32 sum of n squares within γ_{n+1}·Σx², the cpu's
// float64 one within 1e-15·n of it.
func (w *Replay) SumSquares(xs []backend.Buf, ns []int, out []float64) error {
	const name = "SumSquares"
	w.calls[name]++
	hs := make([]backend.Buf, len(xs))
	for i, x := range xs {
		v := make([]float32, x.Len())
		if err := w.Backend.Read(v, x); err != nil {
			return err
		}
		hs[i] = backend.Host(v)
	}
	if err := w.Backend.SumSquares(xs, ns, out); err != nil {
		return err
	}
	cpu := make([]float64, len(out))
	if err := w.host.SumSquares(hs, ns, cpu); err != nil {
		return fmt.Errorf("%s on the cpu: %w", name, err)
	}
	for i, d := range out {
		e := (gamma(ns[i]+1) + f64*float64(ns[i])) * cpu[i] * slack
		if diff := math.Abs(d - cpu[i]); diff > 0 {
			if !(diff <= e) {
				w.t.Errorf("%s: sum %d = %v on the device, %v on the cpu: |Δ| %.3g above the bound %.3g", name, i, d, cpu[i], diff, e)
			}
			w.worst[name] = max(w.worst[name], diff/e)
		}
	}
	return nil
}
func (w *Replay) SGD(p, g backend.Buf, n int, scale, lr float64) error {
	return w.op("SGD", []backend.Buf{p, g}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.SGD(b[0], b[1], n, scale, lr) }, sgdBound(n, scale, lr))
}
func (w *Replay) RMSProp(p, g, v backend.Buf, n int, c backend.RMSPropConsts) error {
	return w.op("RMSProp", []backend.Buf{p, g, v}, []int{0, 2}, func(be backend.Backend, b []backend.Buf) error { return be.RMSProp(b[0], b[1], b[2], n, c) }, rmspropBound(n, c))
}
func (w *Replay) Adam(p, g, m, v backend.Buf, n int, c backend.AdamConsts) error {
	return w.op("Adam", []backend.Buf{p, g, m, v}, []int{0, 2, 3}, func(be backend.Backend, b []backend.Buf) error { return be.Adam(b[0], b[1], b[2], b[3], n, c) }, adamBound(n, c))
}

// AdditiveDeltaSum is the device's SumMid of AdditiveDelta's δ (the
// graph's fold of the two, internal/gx's ops_additive.go), on the cpu the
// two primitives.
func (w *Replay) AdditiveDeltaSum(y, T, v, g backend.Buf, B, S, A int) error {
	return w.op("AdditiveDeltaSum", []backend.Buf{y, T, v, g}, []int{0}, func(be backend.Backend, b []backend.Buf) error {
		if ds, ok := be.(interface {
			AdditiveDeltaSum(y, T, v, g backend.Buf, B, S, A int) error
		}); ok {
			return ds.AdditiveDeltaSum(b[0], b[1], b[2], b[3], B, S, A)
		}
		d := backend.Host(make([]float32, B*S*A))
		if err := be.AdditiveDelta(d, b[1], b[2], b[3], B*S, A, false); err != nil {
			return err
		}
		return be.SumMid(b[0], d, B, S, A)
	}, additiveDeltaSumBound(B, S, A))
}
