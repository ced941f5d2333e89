package seq2seq

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/backend/cpu"
	"github.com/attnzoo/attnzoo/internal/device/devicetest"
)

// replay is a device backend that checks each of its computations against
// the cpu backend's on the same inputs: before a call it reads back every
// buffer the call names (the values the device computes from), runs the
// device, reads back the outputs, runs the cpu's method of the same name on
// host copies of the inputs and compares every output value with the
// primitive's derived bound (bound). It declares the fused ops the device
// and the cpu both declare, and none of the device's own (AdditiveDeltaSum):
// a graph built for it runs the same primitives on either backend.
type replay struct {
	backend.Backend // the device's
	t               testing.TB
	host            *cpu.CPU
	mu              sync.Mutex
	worst           map[string]float64 // per primitive: the largest |dev − cpu| / bound
	calls           map[string]int
	unchecked       map[string]int // primitives the device ran that have no bound here
	fails           int
}

func newReplay(t testing.TB, dev backend.Backend) *replay {
	return &replay{Backend: dev, t: t, host: cpu.New(), worst: map[string]float64{}, calls: map[string]int{}, unchecked: map[string]int{}}
}

// boundFn is the bound on |dev − cpu| of value i of output buffer j (its
// index among the call's buffers), from the values in (by buffer) the call
// read and the cpu's outputs out.
type boundFn func(in, out [][]float32, j, i int) float64

// op runs one primitive on both backends. bufs are the buffers it names,
// outs the indexes of those it writes; run calls the primitive of be on
// buffers standing for bufs (the device's, then host copies; one copy per
// device buffer, so an output that is also an operand stays one).
func (w *replay) op(name string, bufs []backend.Buf, outs []int, run func(be backend.Backend, b []backend.Buf) error, bound boundFn) error {
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
			diff := math.Abs(float64(d) - float64(c))
			e := bound(in, out, j, i)
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

// report logs the worst ratio per primitive and fails on a primitive the
// device ran that has no bound.
func (w *replay) report(t testing.TB) {
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
	for n, c := range w.unchecked {
		t.Errorf("%s: %d calls with no derived bound", n, c)
	}
}

// The abilities a graph looks for (backend.Fuser, Sited, Viewer,
// FusedAttention), passed on to the device.
func (w *replay) Fuses(op string) bool {
	return backend.Fuses(w.Backend, op) && w.host.Fuses(op)
}
func (w *replay) NewSite() backend.Site { return w.Backend.(backend.Sited).NewSite() }
func (w *replay) At(s backend.Site)     { w.Backend.(backend.Sited).At(s) }
func (w *replay) ViewAt(off int) bool   { return w.Backend.(backend.Viewer).ViewAt(off) }
func (w *replay) View(x backend.Buf, off, n int) (backend.Buf, error) {
	return w.Backend.(backend.Viewer).View(x, off, n)
}

// mat is m with its buffer b.
func mat(m backend.Mat, b backend.Buf) backend.Mat { m.Buf = b; return m }

func (w *replay) Map(f backend.Fn, y, x backend.Buf, n int) error {
	return w.op("Map."+f.String(), []backend.Buf{y, x}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.Map(f, b[0], b[1], n) }, mapBound(f, n))
}
func (w *replay) MapGrad(f backend.Fn, dx, y, g backend.Buf, n int) error {
	return w.op("MapGrad."+f.String(), []backend.Buf{dx, y, g}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.MapGrad(f, b[0], b[1], b[2], n) }, mapGradBound(f, n))
}
func (w *replay) Add(y, a, b backend.Buf, n int) error {
	return w.op("Add", []backend.Buf{y, a, b}, []int{0}, func(be backend.Backend, x []backend.Buf) error { return be.Add(x[0], x[1], x[2], n) }, elementwise(n, func(in [][]float32, i int) float64 { return float64(in[1][i]) + float64(in[2][i]) }))
}
func (w *replay) AddTo(y, x backend.Buf, n int) error {
	return w.op("AddTo", []backend.Buf{y, x}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.AddTo(b[0], b[1], n) }, elementwise(n, func(in [][]float32, i int) float64 { return float64(in[0][i]) + float64(in[1][i]) }))
}
func (w *replay) Sub(y, a, b backend.Buf, n int) error {
	return w.op("Sub", []backend.Buf{y, a, b}, []int{0}, func(be backend.Backend, x []backend.Buf) error { return be.Sub(x[0], x[1], x[2], n) }, elementwise(n, func(in [][]float32, i int) float64 { return float64(in[1][i]) - float64(in[2][i]) }))
}
func (w *replay) Mul(y, a, b backend.Buf, n int) error {
	return w.op("Mul", []backend.Buf{y, a, b}, []int{0}, func(be backend.Backend, x []backend.Buf) error { return be.Mul(x[0], x[1], x[2], n) }, elementwise(n, func(in [][]float32, i int) float64 { return float64(in[1][i]) * float64(in[2][i]) }))
}
func (w *replay) Fill(y backend.Buf, v float64, n int) error {
	return w.op("Fill", []backend.Buf{y}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.Fill(b[0], v, n) }, exact)
}
func (w *replay) DropoutMask(y backend.Buf, seed uint64, p float64, n int) error {
	return w.op("DropoutMask", []backend.Buf{y}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.DropoutMask(b[0], seed, p, n) }, nil)
}
func (w *replay) Scale(y, x backend.Buf, alpha float64, n int) error {
	return w.op("Scale", []backend.Buf{y, x}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.Scale(b[0], b[1], alpha, n) }, scaleBound(alpha, n))
}
func (w *replay) Gemm(m, n, k int, alpha float64, a, b backend.Mat, beta float64, c backend.Mat) error {
	return w.op("Gemm", []backend.Buf{c.Buf, a.Buf, b.Buf}, []int{0}, func(be backend.Backend, x []backend.Buf) error {
		return be.Gemm(m, n, k, alpha, mat(a, x[1]), mat(b, x[2]), beta, mat(c, x[0]))
	}, gemmBound(m, n, k, alpha, a, 0, b, 0, beta, c, 0, 1))
}
func (w *replay) GemmBatched(m, n, k int, alpha float64, a backend.Mat, aStride int, b backend.Mat, bStride int, beta float64, c backend.Mat, cStride int, batch int) error {
	return w.op("GemmBatched", []backend.Buf{c.Buf, a.Buf, b.Buf}, []int{0}, func(be backend.Backend, x []backend.Buf) error {
		return be.GemmBatched(m, n, k, alpha, mat(a, x[1]), aStride, mat(b, x[2]), bStride, beta, mat(c, x[0]), cStride, batch)
	}, gemmBound(m, n, k, alpha, a, aStride, b, bStride, beta, c, cStride, batch))
}
func (w *replay) BiasAdd(y, x, b backend.Buf, rows, n int) error {
	return w.op("BiasAdd", []backend.Buf{y, x, b}, []int{0}, func(be backend.Backend, v []backend.Buf) error { return be.BiasAdd(v[0], v[1], v[2], rows, n) }, elementwise(n, func(in [][]float32, i int) float64 { return float64(in[1][i]) + float64(in[2][i%n]) }))
}
func (w *replay) SumRows(y, x backend.Buf, rows, n int, acc bool) error {
	return w.op("SumRows", []backend.Buf{y, x}, []int{0}, func(be backend.Backend, v []backend.Buf) error { return be.SumRows(v[0], v[1], rows, n, acc) }, colSums(0, 0, n, rows, n, acc))
}
func (w *replay) SumMid(y, x backend.Buf, B, S, n int) error {
	return w.op("SumMid", []backend.Buf{y, x}, []int{0}, func(be backend.Backend, v []backend.Buf) error { return be.SumMid(v[0], v[1], B, S, n) }, nil)
}
func (w *replay) MatVec(m, n int, a backend.Mat, x, y backend.Buf, acc bool) error {
	return w.op("MatVec", []backend.Buf{y, a.Buf, x}, []int{0}, func(be backend.Backend, v []backend.Buf) error { return be.MatVec(m, n, mat(a, v[1]), v[2], v[0], acc) }, matVecBound(m, n, a, acc))
}
func (w *replay) Bmv(y, X, v backend.Buf, B, S, D, h int, c float64) error {
	return w.op("Bmv", []backend.Buf{y, X, v}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.Bmv(b[0], b[1], b[2], B, S, D, h, c) }, nil)
}
func (w *replay) WSum(y, wt, X backend.Buf, B, S, D, h int, c float64) error {
	return w.op("WSum", []backend.Buf{y, wt, X}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.WSum(b[0], b[1], b[2], B, S, D, h, c) }, nil)
}
func (w *replay) Outer(y, wt, v backend.Buf, B, S, D, h int, c float64, acc bool) error {
	return w.op("Outer", []backend.Buf{y, wt, v}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.Outer(b[0], b[1], b[2], B, S, D, h, c, acc) }, outerBound(B, S, D, h, c, acc))
}
func (w *replay) GroupSum(y, x backend.Buf, B, S, h int, c float64) error {
	return w.op("GroupSum", []backend.Buf{y, x}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.GroupSum(b[0], b[1], B, S, h, c) }, nil)
}
func (w *replay) RepeatRows(y, x backend.Buf, B, S, h int, c float64) error {
	return w.op("RepeatRows", []backend.Buf{y, x}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.RepeatRows(b[0], b[1], B, S, h, c) }, nil)
}
func (w *replay) AddTanh(y, P, u, c backend.Buf, B, S, A int) error {
	return w.op("AddTanh", []backend.Buf{y, P, u, c}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.AddTanh(b[0], b[1], b[2], b[3], B, S, A) }, addTanhBound(S, A))
}
func (w *replay) AdditiveDelta(y, T, v, g backend.Buf, N, A int, acc bool) error {
	return w.op("AdditiveDelta", []backend.Buf{y, T, v, g}, []int{0}, func(be backend.Backend, b []backend.Buf) error {
		return be.AdditiveDelta(b[0], b[1], b[2], b[3], N, A, acc)
	}, additiveDeltaBound(N, A, acc))
}
func (w *replay) Attend(a backend.Attend) error {
	return w.op("Attend", []backend.Buf{a.Out, a.Mask, a.H, a.P, a.U, a.C, a.V, a.X, a.Q, a.Score}, []int{0}, func(be backend.Backend, b []backend.Buf) error {
		a.Out, a.Mask, a.H, a.P, a.U, a.C, a.V, a.X, a.Q, a.Score = b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9]
		return be.(backend.FusedAttention).Attend(a)
	}, attendBound(a))
}
func (w *replay) AttendBack(a backend.AttendBack) error {
	f := a.F
	return w.op("AttendBack", []backend.Buf{a.Out, a.DW, a.G, f.Out, f.Mask, f.H, f.P, f.U, f.C, f.V, f.X, f.Q, f.Score}, []int{0, 1}, func(be backend.Backend, b []backend.Buf) error {
		a.Out, a.DW, a.G = b[0], b[1], b[2]
		a.F.Out, a.F.Mask, a.F.H, a.F.P, a.F.U, a.F.C, a.F.V, a.F.X, a.F.Q, a.F.Score = b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12]
		return be.(backend.FusedAttention).AttendBack(a)
	}, attendBackBound(a))
}
func (w *replay) MaskedSoftmax(y, x, mask backend.Buf, rows, cols int) error {
	return w.op("MaskedSoftmax", []backend.Buf{y, x, mask}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.MaskedSoftmax(b[0], b[1], b[2], rows, cols) }, maskedSoftmaxBound(cols))
}
func (w *replay) SoftmaxGrad(dx, y, g backend.Buf, rows, cols int) error {
	return w.op("SoftmaxGrad", []backend.Buf{dx, y, g}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.SoftmaxGrad(b[0], b[1], b[2], rows, cols) }, softmaxGradBound(cols))
}
func (w *replay) MaskFill(y, x, mask backend.Buf, v float64, n int) error {
	return w.op("MaskFill", []backend.Buf{y, x, mask}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.MaskFill(b[0], b[1], b[2], v, n) }, exact)
}
func (w *replay) LogSoftmax(y, z backend.Buf, rows, cols int) error {
	return w.op("LogSoftmax", []backend.Buf{y, z}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.LogSoftmax(b[0], b[1], rows, cols) }, nil)
}
func (w *replay) SoftmaxXent(out, loss, z, t, m, eps backend.Buf, c float64, rows, cols int) error {
	return w.op("SoftmaxXent", []backend.Buf{out, loss, z, t, m, eps}, []int{0, 1}, func(be backend.Backend, b []backend.Buf) error {
		return be.SoftmaxXent(b[0], b[1], b[2], b[3], b[4], b[5], c, rows, cols)
	}, xentBound(eps, c, rows, cols))
}
func (w *replay) SoftmaxXentGrad(dz, z, t, m, eps, g backend.Buf, c float64, rows, cols int) error {
	return w.op("SoftmaxXentGrad", []backend.Buf{dz, z, t, m, eps, g}, []int{0}, func(be backend.Backend, b []backend.Buf) error {
		return be.SoftmaxXentGrad(b[0], b[1], b[2], b[3], b[4], b[5], c, rows, cols)
	}, xentGradBound(eps, c, rows, cols))
}
func (w *replay) Argmax(out, x backend.Buf, rows, cols int) error {
	return w.op("Argmax", []backend.Buf{out, x}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.Argmax(b[0], b[1], rows, cols) }, nil)
}
func (w *replay) L2Norm(y, x backend.Buf, eps float64, rows, cols int) error {
	return w.op("L2Norm", []backend.Buf{y, x}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.L2Norm(b[0], b[1], eps, rows, cols) }, nil)
}
func (w *replay) L2Grad(dx, x, g backend.Buf, eps float64, rows, cols int) error {
	return w.op("L2Grad", []backend.Buf{dx, x, g}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.L2Grad(b[0], b[1], b[2], eps, rows, cols) }, nil)
}
func (w *replay) ScaleBy(y, x, gamma backend.Buf, n int) error {
	return w.op("ScaleBy", []backend.Buf{y, x, gamma}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.ScaleBy(b[0], b[1], b[2], n) }, nil)
}
func (w *replay) Dot(out, a, b backend.Buf, n int) error {
	return w.op("Dot", []backend.Buf{out, a, b}, []int{0}, func(be backend.Backend, x []backend.Buf) error { return be.Dot(x[0], x[1], x[2], n) }, nil)
}
func (w *replay) Copy2D(dst backend.Buf, dOff, dLd int, src backend.Buf, sOff, sLd, rows, cols int) error {
	return w.op("Copy2D", []backend.Buf{dst, src}, []int{0}, func(be backend.Backend, b []backend.Buf) error {
		return be.Copy2D(b[0], dOff, dLd, b[1], sOff, sLd, rows, cols)
	}, exact)
}
func (w *replay) Stack(dst backend.Buf, xs []backend.Buf, n int) error {
	return w.op("Stack", append([]backend.Buf{dst}, xs...), []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.Stack(b[0], b[1:], n) }, exact)
}
func (w *replay) Embed(out, E, ids backend.Buf, V, D, N int) error {
	return w.op("Embed", []backend.Buf{out, E, ids}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.Embed(b[0], b[1], b[2], V, D, N) }, exact)
}
func (w *replay) EmbedGrad(dE, g, ids backend.Buf, V, D, N int, acc bool) error {
	return w.op("EmbedGrad", []backend.Buf{dE, g, ids}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.EmbedGrad(b[0], b[1], b[2], V, D, N, acc) }, embedGradBound(D, N, acc))
}
func (w *replay) Im2Col(out, x backend.Buf, geo backend.ConvGeom, B, C int) error {
	return w.op("Im2Col", []backend.Buf{out, x}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.Im2Col(b[0], b[1], geo, B, C) }, nil)
}
func (w *replay) Col2Im(out, g backend.Buf, geo backend.ConvGeom, B, C int) error {
	return w.op("Col2Im", []backend.Buf{out, g}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.Col2Im(b[0], b[1], geo, B, C) }, nil)
}
func (w *replay) GRUGates(gates backend.Buf, xs []backend.Buf, hh, b, bhn, tmp backend.Buf, B, H int) error {
	return w.op("GRUGates", append([]backend.Buf{gates, tmp, hh, b, bhn}, xs...), []int{0}, func(be backend.Backend, v []backend.Buf) error {
		return be.GRUGates(v[0], v[5:], v[2], v[3], v[4], v[1], B, H)
	}, nil)
}
func (w *replay) GRUGatesBack(out, gates, g backend.Buf, B, H int, dh bool) error {
	return w.op("GRUGatesBack", []backend.Buf{out, gates, g}, []int{0}, func(be backend.Backend, v []backend.Buf) error { return be.GRUGatesBack(v[0], v[1], v[2], B, H, dh) }, nil)
}
func (w *replay) GRUBlend(out, gates, h backend.Buf, B, H int) error {
	return w.op("GRUBlend", []backend.Buf{out, gates, h}, []int{0}, func(be backend.Backend, v []backend.Buf) error { return be.GRUBlend(v[0], v[1], v[2], B, H) }, nil)
}
func (w *replay) GRUBlendDG(out, gates, h, g backend.Buf, B, H int) error {
	return w.op("GRUBlendDG", []backend.Buf{out, gates, h, g}, []int{0}, func(be backend.Backend, v []backend.Buf) error { return be.GRUBlendDG(v[0], v[1], v[2], v[3], B, H) }, nil)
}
func (w *replay) GRUBlendDH(out, gates, g backend.Buf, B, H int, acc bool) error {
	return w.op("GRUBlendDH", []backend.Buf{out, gates, g}, []int{0}, func(be backend.Backend, v []backend.Buf) error { return be.GRUBlendDH(v[0], v[1], v[2], B, H, acc) }, nil)
}
func (w *replay) ColSums(y backend.Buf, yOff int, x backend.Buf, xOff, ld, rows, cols int, acc bool) error {
	return w.op("ColSums", []backend.Buf{y, x}, []int{0}, func(be backend.Backend, v []backend.Buf) error {
		return be.ColSums(v[0], yOff, v[1], xOff, ld, rows, cols, acc)
	}, colSums(yOff, xOff, ld, rows, cols, acc))
}
func (w *replay) GRUSeq(out, xw backend.Buf, u backend.Mat, b, bhn, h0, keep backend.Buf, B, S, H int, reverse bool, hh, ut backend.Buf) error {
	return w.op("GRUSeq", []backend.Buf{out, hh, ut, xw, u.Buf, b, bhn, h0, keep}, []int{0}, func(be backend.Backend, v []backend.Buf) error {
		return be.GRUSeq(v[0], v[3], mat(u, v[4]), v[5], v[6], v[7], v[8], B, S, H, reverse, v[1], v[2])
	}, nil)
}
func (w *replay) GRUSeqBack(dxi, dhh, hprev, carry backend.Buf, fwd, gr backend.Buf, u backend.Mat, h0, keep backend.Buf, B, S, H int, reverse bool, dhp backend.Buf) error {
	return w.op("GRUSeqBack", []backend.Buf{dxi, dhh, hprev, carry, dhp, fwd, gr, u.Buf, h0, keep}, []int{0, 1, 2, 3}, func(be backend.Backend, v []backend.Buf) error {
		return be.GRUSeqBack(v[0], v[1], v[2], v[3], v[5], v[6], mat(u, v[7]), v[8], v[9], B, S, H, reverse, v[4])
	}, nil)
}
func (w *replay) SumSquares(xs []backend.Buf, ns []int, out []float64) error {
	return w.op("SumSquares", xs, nil, func(be backend.Backend, b []backend.Buf) error { return be.SumSquares(b, ns, out) }, nil)
}
func (w *replay) SGD(p, g backend.Buf, n int, scale, lr float64) error {
	return w.op("SGD", []backend.Buf{p, g}, []int{0}, func(be backend.Backend, b []backend.Buf) error { return be.SGD(b[0], b[1], n, scale, lr) }, nil)
}
func (w *replay) RMSProp(p, g, v backend.Buf, n int, c backend.RMSPropConsts) error {
	return w.op("RMSProp", []backend.Buf{p, g, v}, []int{0, 2}, func(be backend.Backend, b []backend.Buf) error { return be.RMSProp(b[0], b[1], b[2], n, c) }, nil)
}
func (w *replay) Adam(p, g, m, v backend.Buf, n int, c backend.AdamConsts) error {
	return w.op("Adam", []backend.Buf{p, g, m, v}, []int{0, 2, 3}, func(be backend.Backend, b []backend.Buf) error { return be.Adam(b[0], b[1], b[2], b[3], n, c) }, nil)
}

// TestDeviceOpBounds: one training step's loss and gradients of a small
// model on the device, every primitive the machine ran checked against the
// cpu's on the same inputs within its derived bound.
func TestDeviceOpBounds(t *testing.T) {
	d := devicetest.OpenCL(t)
	for _, cfg := range []Config{tiny("rnn", "birnn", "bahdanau", "concat"), tiny("lstm", "birnn", "luong", "dot")} {
		t.Run(cfg.Decoder+"/"+cfg.Scorer, func(t *testing.T) {
			cfg.Dtype = "float32"
			m, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(3, 4))
			src, tgt := reversal(rng, 3, 2, 5)
			b, err := NewBatch(src, tgt)
			if err != nil {
				t.Fatal(err)
			}
			w := newReplay(t, d.Backend())
			if err := m.UseDevice(w); err != nil {
				t.Fatal(err)
			}
			defer m.UseDevice(nil)
			c := NewGraphCache(0)
			defer c.Close()
			if _, _, err := m.Loss(b, rand.New(rand.NewPCG(1, 1)), c); err != nil {
				t.Fatal(err)
			}
			w.report(t)
		})
	}
}

// The bounds. Both backends compute every value of a primitive from the
// same float32 inputs by the same formula; they differ only in each one's
// own rounding, so |dev − cpu| ≤ e_dev + e_cpu, e the error of one side
// against the exact value of the formula on those inputs:
//
//   - one operation + − × of IEEE single precision (both: the OpenCL
//     1.2 specification, §7.4, requires them correctly rounded; Go's
//     float32 arithmetic is): u·|exact|, u = 2⁻²⁴;
//   - a sum of K terms, each a product of up to p factors, in any order
//     (a work-group tree, a blocked product, a contracted a·b + c):
//     γ_{K+p−1}·Σ|terms|, γ_n = n·u/(1 − n·u) (Higham, Accuracy and
//     Stability of Numerical Algorithms, 2nd ed., §3.1);
//   - the device's built-ins, at the OpenCL 1.2 specification's limits
//     for single precision (§7.4, table 7.1; no -cl-fast-relaxed-math,
//     no native_ functions in kernels/*.cl): exp and log 3 ulp, tanh 5 ulp,
//     x/y 2.5 ulp; an ulp of y at most 2⁻²³·|y| (normal y) or 2⁻¹⁴⁹;
//   - the cpu's float32 tanh (kern.tanh32, a [13/6] rational function R
//     on x clamped to [−9, 9]): |R(x) − tanh x|, computed per value in
//     float64 with the coefficients as float32 holds them, plus its
//     evaluation's rounding: Horner's rule in x² over 7 and 4 coefficients
//     (Higham §5.1: γ_12·P̃(x²) and γ_6·Q̃(x²), P̃ the polynomial with
//     |coefficients|), x² itself rounded (≤ 6u·P̃ and 3u·Q̃ through the
//     polynomials), then x·P and /Q (2u): relative to |R|,
//     (γ_12 + 6u)·P̃/|P| + (γ_6 + 3u)·Q̃/|Q| + 2u; its σ = 0.5 + 0.5·tanh(x/2)
//     half that at x/2 plus u·σ; its exp (kern.Exp32, Cephes' expf) at the
//     2 ulp its doc states and TestExp32 checks (not derived here); a float64
//     step (the cross-entropy's sums and log) at 2⁻⁵³ of each term, taken
//     as 1e-15 relative.
//
// A composite primitive (the softmaxes, the cross-entropy, the attention
// chain) propagates these to first order along its formula; every bound is
// then taken ×1.01 for the terms of order u² dropped, as
// internal/device/backend_attend_test.go does.
const (
	uRound    = 1.0 / (1 << 24)
	ulp2      = 2 * uRound // an ulp, relative to the value
	subnormal = 0x1p-149   // the smallest subnormal: an ulp below 2⁻¹²⁶
	slack     = 1.01
)

func gamma(n int) float64 { return float64(n) * uRound / (1 - float64(n)*uRound) }

func abs32(x float32) float64 { return math.Abs(float64(x)) }

// devTanh, cpuTanh: each side's error on tanh(x).
func devTanh(x float32) float64 { return 5 * (ulp2*math.Abs(math.Tanh(float64(x))) + subnormal) }

// tanhP, tanhQ: kern.tanh32's coefficients, highest power first, as float32.
var tanhP = []float32{-2.76076847742355e-16, 2.00018790482477e-13, -8.60467152213735e-11, 5.12229709037114e-08,
	1.48572235717979e-05, 6.37261928875436e-04, 4.89352455891786e-03}
var tanhQ = []float32{1.19825839466702e-06, 1.18534705686654e-04, 2.26843463243900e-03, 4.89352518554385e-03}

// horner is Σ c_k·t^k and Σ |c_k|·t^k (t ≥ 0).
func horner(c []float32, t float64) (p, pa float64) {
	for _, v := range c {
		p, pa = p*t+float64(v), pa*t+math.Abs(float64(v))
	}
	return p, pa
}

func cpuTanh(x float32) float64 {
	xc := math.Min(math.Max(float64(x), -9), 9)
	p, pa := horner(tanhP, xc*xc)
	q, qa := horner(tanhQ, xc*xc)
	r := xc * p / q
	rel := (gamma(12)+6*uRound)*pa/math.Abs(p) + (gamma(6)+3*uRound)*qa/math.Abs(q) + 2*uRound
	return math.Abs(r-math.Tanh(float64(x))) + rel*math.Abs(r) + subnormal
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// devSigmoid: 1/(1 + exp(−x)): exp 6u relative, the sum u of itself
// (so 7u of 1 + e), the division 2.5 ulp: 12u of σ.
func devSigmoid(x float32) float64 { return 12*uRound*sigmoid(float64(x)) + 3*subnormal }

func cpuSigmoid(x float32) float64 {
	return 0.5*cpuTanh(0.5*x) + uRound*sigmoid(float64(x)) + subnormal
}

// Each side's relative error of one exponential and one division.
const (
	devExp, cpuExp = 3 * ulp2, 2 * ulp2
	devDiv, cpuDiv = 2.5 * ulp2, uRound
	devLog         = 3 * ulp2
	f64            = 1e-15
)

// elementwise is the bound of a primitive computing each output value by
// one correctly rounded operation (2u of the exact value x(i), both
// sides).
func elementwise(n int, x func(in [][]float32, i int) float64) boundFn {
	return func(in, _ [][]float32, _, i int) float64 {
		if i >= n {
			return 0 // not written: the same on both sides
		}
		return 2 * uRound * math.Abs(x(in, i))
	}
}

// exact is the bound of a copy: the same bits.
func exact(_, _ [][]float32, _, _ int) float64 { return 0 }

// at is op(M)[i,k] of a matrix in buffer v, at offset off.
func at(m backend.Mat, v []float32, off, i, k int) float32 {
	if m.T {
		return v[off+m.Off+k*m.Ld+i]
	}
	return v[off+m.Off+i*m.Ld+k]
}

// gemmBound: C = α·op(A)·op(B) + β·C over batch products: each value a
// sum of k products of 3 factors and β·c: γ_{k+3}·(|α|·Σ|a·b| + |β·c|) a
// side.
func gemmBound(m, n, k int, alpha float64, a backend.Mat, aStride int, b backend.Mat, bStride int, beta float64, c backend.Mat, cStride, batch int) boundFn {
	return func(in, _ [][]float32, _, e int) float64 {
		r := e - c.Off
		p := 0
		if batch > 1 {
			p, r = r/cStride, r%cStride
		}
		i, j := r/c.Ld, r%c.Ld
		if r < 0 || p >= batch || i >= m || j >= n {
			return 0
		}
		s := 0.0
		for l := range k {
			s += abs32(at(a, in[1], p*aStride, i, l)) * abs32(at(b, in[2], p*bStride, l, j))
		}
		s = math.Abs(alpha) * s
		if beta != 0 {
			s += math.Abs(beta) * abs32(in[0][e])
		}
		return 2 * gamma(k+3) * s
	}
}

// mapBound: tanh and σ at each side's error; ReLU exact.
func mapBound(f backend.Fn, n int) boundFn {
	side := map[backend.Fn][2]func(float32) float64{backend.Tanh: {devTanh, cpuTanh}, backend.Sigmoid: {devSigmoid, cpuSigmoid}}[f]
	if side[0] == nil {
		return exact
	}
	return func(in, _ [][]float32, _, i int) float64 {
		if i >= n {
			return 0
		}
		return slack * (side[0](in[1][i]) + side[1](in[1][i]))
	}
}

// mapGradBound: g·(1 − y·y) and g·y·(1 − y), three roundings a side
// (relative to each factor; 1 − y² within u·y² + u·|1 − y²|).
func mapGradBound(f backend.Fn, n int) boundFn {
	switch f {
	case backend.Tanh:
		return func(in, _ [][]float32, _, i int) float64 {
			if i >= n {
				return 0
			}
			y, g := float64(in[1][i]), float64(in[2][i])
			return 2 * gamma(3) * math.Abs(g) * (y*y + math.Abs(1-y*y))
		}
	case backend.Sigmoid:
		return func(in, _ [][]float32, _, i int) float64 {
			if i >= n {
				return 0
			}
			y, g := float64(in[1][i]), float64(in[2][i])
			return 2 * gamma(3) * math.Abs(g*y*(1-y))
		}
	}
	return exact
}

// colSums: y[yOff+c] = Σ_r x[xOff + r·ld + c] (+ y): rows (+1) terms.
func colSums(yOff, xOff, ld, rows, cols int, acc bool) boundFn {
	return func(in, _ [][]float32, _, e int) float64 {
		c := e - yOff
		if c < 0 || c >= cols {
			return 0
		}
		s := 0.0
		for r := range rows {
			s += abs32(in[1][xOff+r*ld+c])
		}
		if acc {
			s += abs32(in[0][e])
		}
		return 2 * gamma(rows+1) * s
	}
}

// matVecBound: y = op(A)·x (+ y): n products (+1).
func matVecBound(m, n int, a backend.Mat, acc bool) boundFn {
	return func(in, _ [][]float32, _, i int) float64 {
		if i >= m {
			return 0
		}
		s := 0.0
		for j := range n {
			s += abs32(at(a, in[1], 0, i, j)) * abs32(in[2][j])
		}
		if acc {
			s += abs32(in[0][i])
		}
		return 2 * gamma(n+2) * s
	}
}

// outerBound: (c·w)·v (+ y), c as float32: four roundings.
func outerBound(B, S, D, h int, c float64, acc bool) boundFn {
	return func(in, _ [][]float32, _, e int) float64 {
		if e >= B*S*D {
			return 0
		}
		b, i, d := e/(S*D), e/D%S, e%D
		t := math.Abs(c * float64(in[1][(b*h+d/(D/h))*S+i]) * float64(in[2][b*D+d]))
		if acc {
			t += abs32(in[0][e])
		}
		return 2 * gamma(4) * t
	}
}

// scaleBound: α·x, α as float32: two roundings.
func scaleBound(alpha float64, n int) boundFn {
	return func(in, _ [][]float32, _, i int) float64 {
		if i >= n {
			return 0
		}
		return 2 * gamma(2) * math.Abs(alpha*float64(in[1][i]))
	}
}

// tanhArg is AddTanh's argument (P + u) + c, which both sides round alike
// (two correctly rounded sums in this order).
func tanhArg(p, u, c float32) float32 { x := p + u; return x + c }

// addTanhBound: tanh of the same argument on both sides.
func addTanhBound(S, A int) boundFn {
	return func(in, _ [][]float32, _, j int) float64 {
		if j >= len(in[0]) || j >= len(in[1]) {
			return 0
		}
		a, b := j%A, j/(S*A)
		x := tanhArg(in[1][j], in[2][b*A+a], in[3][a])
		return slack * (devTanh(x) + cpuTanh(x))
	}
}

// additiveDeltaBound: (g·v)·(1 − T²) (+ y): five roundings a side.
func additiveDeltaBound(N, A int, acc bool) boundFn {
	return func(in, _ [][]float32, _, e int) float64 {
		if e >= N*A {
			return 0
		}
		t := float64(in[1][e])
		s := math.Abs(float64(in[3][e/A])*float64(in[2][e%A])) * (t*t + math.Abs(1-t*t))
		if acc {
			s += abs32(in[0][e])
		}
		return 2 * gamma(5) * s
	}
}

// embedGradBound: each row of dE the sum of the rows of g with its id
// (+ dE).
func embedGradBound(D, N int, acc bool) boundFn {
	return func(in, _ [][]float32, _, e int) float64 {
		v, d := e/D, e%D
		s, k := 0.0, 0
		for n := range N {
			if int(in[2][n]) == v {
				s += abs32(in[1][n*D+d])
				k++
			}
		}
		if acc {
			s += abs32(in[0][e])
		}
		return 2 * gamma(k+1) * s
	}
}

// softmaxRel is one side's relative error of each weight p_i of a softmax
// of values x over the kept keys, M their maximum: the argument x_i − M
// rounded (u·|x_i − M| of e^…), the exponential (ex), the sum of S terms
// (its terms' errors, weighted, and γ_S), the division (div).
func softmaxRel(x, p []float64, kept []bool, M, ex, div float64) []float64 {
	arg := func(i int) float64 { return uRound*math.Abs(x[i]-M) + ex }
	sum := gamma(len(x))
	for j := range x {
		if kept[j] {
			sum += p[j] * arg(j)
		}
	}
	rel := make([]float64, len(x))
	for i := range x {
		rel[i] = arg(i) + sum + div
	}
	return rel
}

// softmaxRow is the weights' bound of one row of n values x (those kept),
// given the bound ds of each value's difference between the sides: the
// softmax's Jacobian carries ds, each side adds its own rounding.
func softmaxRow(x, w, ds []float64, kept []bool) []float64 {
	M := math.Inf(-1)
	for i, k := range kept {
		if k {
			M = math.Max(M, x[i])
		}
	}
	e := make([]float64, len(x))
	if math.IsInf(M, -1) {
		return e
	}
	dev, cpu := softmaxRel(x, w, kept, M, devExp, devDiv), softmaxRel(x, w, kept, M, cpuExp, cpuDiv)
	wd := 0.0
	for j := range x {
		wd += w[j] * ds[j]
	}
	for i := range x {
		if kept[i] {
			e[i] = w[i] * (ds[i] + wd + dev[i] + cpu[i])
		}
	}
	return e
}

// f64s is v[off : off+n] widened.
func f64s(v []float32, off, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = float64(v[off+i])
	}
	return x
}

func keptRow(m []float32, off, n int) []bool {
	k := make([]bool, n)
	for i := range k {
		k[i] = m[off+i] > 0.5
	}
	return k
}

// maskedSoftmaxBound: y(0), x(1), mask(2), by rows.
func maskedSoftmaxBound(cols int) boundFn {
	return rowwise(cols, func(in, out [][]float32, r int) []float64 {
		o := r * cols
		return softmaxRow(f64s(in[1], o, cols), f64s(out[0], o, cols), make([]float64, cols), keptRow(in[2], o, cols))
	})
}

// rowwise computes a row's bounds once, when its first value is checked.
func rowwise(cols int, row func(in, out [][]float32, r int) []float64) boundFn {
	var cur []float64
	at := -1
	return func(in, out [][]float32, j, e int) float64 {
		if j != 0 {
			return 0
		}
		if r := e / cols; r != at {
			cur, at = row(in, out, r), r
		}
		return slack * cur[e%cols]
	}
}

// softmaxGradBound: dx_i = y_i·(g_i − Σ_j y_j·g_j), S + 2 roundings.
func softmaxGradBound(cols int) boundFn {
	return rowwise(cols, func(in, _ [][]float32, r int) []float64 {
		y, g := f64s(in[1], r*cols, cols), f64s(in[2], r*cols, cols)
		d := 0.0
		for j := range y {
			d += math.Abs(y[j] * g[j])
		}
		e := make([]float64, cols)
		for i := range e {
			e[i] = 2 * gamma(cols+2) * math.Abs(y[i]) * (math.Abs(g[i]) + d)
		}
		return e
	})
}

// xentRow is a row's softmax (p) of z, its maximum M, log S (S = Σ e^(z−M))
// and each side's relative error of S (its terms' and the sum's).
type xentRow struct {
	p                []float64
	z                []float64
	M, logS          float64
	sDev, sCpu, argM float64 // argM: Σ p_i·u·|z_i − M|
}

func newXentRow(z []float32, off, V int) xentRow {
	x := xentRow{z: f64s(z, off, V), M: math.Inf(-1)}
	for _, v := range x.z {
		x.M = math.Max(x.M, v)
	}
	s := 0.0
	x.p = make([]float64, V)
	for i, v := range x.z {
		x.p[i] = math.Exp(v - x.M)
		s += x.p[i]
	}
	for i, v := range x.z {
		x.p[i] /= s
		x.argM += x.p[i] * uRound * math.Abs(v-x.M)
	}
	x.logS = math.Log(s)
	x.sDev = x.argM + devExp + gamma(V)
	x.sCpu = x.argM + cpuExp + f64*float64(V)
	return x
}

// xentBound: out(0) = c·Σ_b loss_b, loss(1) = m_b·((M − z_t) + log S).
// The device: S (sDev), log 3 ulp, M − z_t and the sum rounded, × m_b;
// the cpu: S (sCpu), the rest in float64, loss_b rounded once. out: each
// side's losses' errors, the device's float32 sum of them (γ_rows) and
// its c as float32 and product (2u), the cpu's rounding (u). Label
// smoothing (eps) is left unchecked.
func xentBound(eps backend.Buf, c float64, rows, V int) boundFn {
	if eps.Len() > 0 {
		return nil
	}
	var e []float64 // per row: both sides' errors of loss_b
	var sum float64 // Σ|loss_b|
	return func(in, out [][]float32, j, i int) float64 {
		if e == nil {
			e = make([]float64, rows)
			for b := range rows {
				m := float64(in[4][b])
				if m == 0 {
					continue
				}
				x := newXentRow(in[2], b*V, V)
				zt := x.z[int(in[3][b])]
				nll := x.M - zt + x.logS
				loss := math.Abs(m * nll)
				dev := math.Abs(m)*(x.sDev+devLog*math.Abs(x.logS)+uRound*math.Abs(x.M-zt)+uRound*math.Abs(nll)) + uRound*loss
				cpu := math.Abs(m)*(x.sCpu+f64*(math.Abs(x.M)+math.Abs(x.logS)+math.Abs(zt))) + uRound*loss
				e[b] = dev + cpu
				sum += loss
			}
		}
		if j == 1 {
			return slack * e[i]
		}
		t := gamma(rows) * sum
		for _, v := range e {
			t += v
		}
		return slack * (math.Abs(c)*t + 3*uRound*abs32(out[0][0]))
	}
}

// xentGradBound: dz(0) = k·(p_i − [i = t]), k = (c·g)·m_b (3u a side).
// The device: p_i = exp(z_i − M)/S (the argument, exp, S, the division),
// k·p rounded, − k rounded; the cpu: the same with its exp, S in float64,
// the quotient rounded once.
func xentGradBound(eps backend.Buf, c float64, rows, V int) boundFn {
	if eps.Len() > 0 {
		return nil
	}
	return rowwise(V, func(in, _ [][]float32, b int) []float64 {
		e := make([]float64, V)
		m := float64(in[3][b])
		if m == 0 {
			return e
		}
		k := math.Abs(c * float64(in[5][0]) * m)
		x := newXentRow(in[1], b*V, V)
		t := int(in[2][b])
		for i, p := range x.p {
			d := p
			if i == t {
				d -= 1
			}
			arg := uRound * math.Abs(x.z[i]-x.M)
			dev := k*p*(arg+devExp+x.sDev+devDiv+uRound) + 3*uRound*k*math.Abs(d) + uRound*k*math.Abs(d)
			cpu := k*p*(arg+cpuExp+x.sCpu+2*uRound) + 3*uRound*k*math.Abs(d) + uRound*k*math.Abs(d)
			e[i] = dev + cpu
		}
		return e
	})
}

// attendBound: the chain forward (backend.Attend, one head) at its layout's
// offsets, in(0) = Out, then Mask, H, P, U, C, V, X, Q, Score. With the
// cpu's T, s, w (out) for the magnitudes:
//
//	T_ra:  tanh of the same argument (addTanhBound)
//	s_r:   additive Σ_a |ΔT_ra·V_a| + 2γ_{A+1}·Σ_a |T_ra·V_a|;
//	       dot 2γ_{K+2}·|SC|·Σ_k |X_rk·Q_bk|
//	w_r:   softmaxRow from those
//	ctx_d: Σ_i |CC|·Δw_i·|H_id| + 2γ_{S+2}·Σ_i |CC·w_i·H_id|
func attendBound(a backend.Attend) boundFn {
	if a.NHeads() > 1 {
		return nil
	}
	B, S, D, A, K, n := a.B, a.S, a.D, a.A, a.K, a.B*a.S
	l := a.Layout()
	var eT, eS, eW, eC []float64
	prepare := func(in, out [][]float32) {
		o := out[0]
		eT, eS, eW, eC = make([]float64, n*A), make([]float64, n), make([]float64, n), make([]float64, B*D)
		for r := range n {
			b := r / S
			switch {
			case A > 0:
				for j := range A {
					x := tanhArg(in[3][r*A+j], in[4][b*A+j], in[5][j])
					eT[r*A+j] = devTanh(x) + cpuTanh(x)
					eS[r] += eT[r*A+j]*abs32(in[6][j]) + 2*gamma(A+1)*abs32(o[l.T+r*A+j])*abs32(in[6][j])
				}
			case K > 0:
				for k := range K {
					eS[r] += 2 * gamma(K+2) * math.Abs(a.SC) * abs32(in[7][r*K+k]) * abs32(in[8][b*K+k])
				}
			}
		}
		s := o[l.S : l.S+n]
		if A == 0 && K == 0 {
			s = in[9][:n]
		}
		for b := range B {
			copy(eW[b*S:], softmaxRow(f64s(s, b*S, S), f64s(o, l.W+b*S, S), eS[b*S:(b+1)*S], keptRow(in[1], b*S, S)))
			for d := range D {
				for i := range S {
					h, w := abs32(in[2][(b*S+i)*D+d]), float64(o[l.W+b*S+i])
					eC[b*D+d] += math.Abs(a.CC) * h * (eW[b*S+i] + 2*gamma(S+2)*w)
				}
			}
		}
	}
	return func(in, out [][]float32, _, e int) float64 {
		if eT == nil {
			prepare(in, out)
		}
		switch {
		case e >= l.W && e < l.W+n:
			return slack * eW[e-l.W]
		case A > 0 && e >= l.T && e < l.T+n*A:
			return slack * eT[e-l.T]
		case (A > 0 || K > 0) && e >= l.S && e < l.S+n:
			return slack * eS[e-l.S]
		case e >= l.Ctx && e < l.Ctx+B*D:
			return slack * eC[e-l.Ctx]
		}
		return 0
	}
}

// attendBackBound: the chain's gradient (backend.AttendBack, one head),
// in(0) = Out, DW, G, then the forward's Out, Mask, H, P, U, C, V, X, Q,
// Score; w and T are the forward's values, the same on both sides. With
// the cpu's dw, ds, δ for the magnitudes:
//
//	dw_r:  f_r = 2γ_{D+2}·|CC|·Σ_d |H_rd·G_bd|
//	ds_r:  h_r = w_r·(f_r + Σ_j w_j·f_j) + 2γ_{S+3}·w_r·(|dw_r| + Σ_j w_j·|dw_j|)
//	δ_ra:  h_r·|V_a|·|1 − T²| + 2γ_5·|ds_r·V_a|·(T² + |1 − T²|);  ∂U: Σ_i that + 2γ_{S+1}·Σ_i |δ|
//	∂X_rk: |SC|·h_r·|Q_bk| + 2γ_3·|SC·ds_r·Q_bk|;  ∂Q_bk: Σ_i |SC|·h_r·|X_rk| + 2γ_{S+3}·Σ_i |SC·ds_r·X_rk|
func attendBackBound(ab backend.AttendBack) boundFn {
	f := ab.F
	if f.NHeads() > 1 {
		return nil
	}
	B, S, D, A, K, n := f.B, f.S, f.D, f.A, f.K, f.B*f.S
	fl, l := f.Layout(), ab.Layout()
	var eDW, eDS, eKeys, eQuery []float64
	prepare := func(in, out [][]float32) {
		fo, dw, ds, o := in[3], out[1], out[0], out[0]
		w := func(r int) float64 { return float64(fo[fl.W+r]) }
		eDW, eDS = make([]float64, n), make([]float64, n)
		for r := range n {
			for d := range D {
				eDW[r] += 2 * gamma(D+2) * math.Abs(f.CC) * abs32(in[5][r*D+d]) * abs32(in[2][(r/S)*D+d])
			}
		}
		for b := range B {
			wf, wd := 0.0, 0.0
			for j := b * S; j < (b+1)*S; j++ {
				wf += w(j) * eDW[j]
				wd += w(j) * abs32(dw[j])
			}
			for r := b * S; r < (b+1)*S; r++ {
				eDS[r] = w(r)*(eDW[r]+wf) + 2*gamma(S+3)*w(r)*(abs32(dw[r])+wd)
			}
		}
		wk := A + K
		eKeys, eQuery = make([]float64, n*wk), make([]float64, B*wk)
		for r := range n {
			b := r / S
			for j := range wk {
				var e, q float64
				if A > 0 {
					t, v := float64(fo[fl.T+r*A+j]), abs32(in[9][j])
					e = eDS[r]*v*math.Abs(1-t*t) + 2*gamma(5)*abs32(ds[r])*v*(t*t+math.Abs(1-t*t))
					q = e + 2*gamma(S+1)*abs32(o[l.Keys+r*A+j])
				} else {
					sc := math.Abs(f.SC)
					e = sc*eDS[r]*abs32(in[11][b*K+j]) + 2*gamma(3)*sc*abs32(ds[r])*abs32(in[11][b*K+j])
					x := abs32(in[10][r*K+j])
					q = sc*eDS[r]*x + 2*gamma(S+3)*sc*abs32(ds[r])*x
				}
				eKeys[r*wk+j] = e
				eQuery[b*wk+j] += q
			}
		}
	}
	return func(in, out [][]float32, j, e int) float64 {
		if eDW == nil {
			prepare(in, out)
		}
		wk := A + K
		switch {
		case j == 1 && e < n:
			return slack * eDW[e]
		case j == 1:
			return 0
		case e < n:
			return slack * eDS[e]
		case e >= l.Keys && e < l.Keys+n*wk:
			return slack * eKeys[e-l.Keys]
		case e >= l.Query && e < l.Query+B*wk:
			return slack * eQuery[e-l.Query]
		}
		return 0
	}
}
