// Package minimal is a device backend for tests: the cpu backend's kernels
// behind backend.Backend alone, with memory of its own. Its buffers are
// its own type behind backend.Buf.Mem (float32 values the host reaches
// only through Read and Write), Host is false, and it has no optional
// capability (no backend.Sited, backend.FusedAttention, backend.Stepper,
// nor any of the engine's own probes): a model on it runs the engine's
// device path, every value in its buffers and the optimizer's update made
// of its Optim methods, as a new device backend's would before it adds any
// capability. Each method unwraps its buffers and runs the cpu's method on
// them, so a value is the cpu's own wherever the engine runs the same
// sequence of methods on both.
//
// A test registers it by a name of its choice (backend.Register); nothing
// registers it otherwise.
package minimal

import (
	"fmt"

	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/backend/cpu"
)

// Device is the minimal device backend.
type Device struct {
	name string
	c    *cpu.CPU
}

var _ backend.Backend = (*Device)(nil)

// New returns a minimal device backend named name.
func New(name string) *Device { return &Device{name: name, c: cpu.New()} }

// mem is a buffer of the device: n float32 values.
type mem struct{ v []float32 }

func (m *mem) Len() int { return len(m.v) }

// un is the cpu's view of a device buffer; a buffer that is not the
// device's (a host one) reads as empty, which every cpu kernel refuses
// where it needs values.
func un(x backend.Buf) backend.Buf {
	if m, ok := x.Mem.(*mem); ok {
		return backend.Buf{F32: m.v}
	}
	return backend.Buf{}
}

func uns(xs []backend.Buf) []backend.Buf {
	out := make([]backend.Buf, len(xs))
	for i, x := range xs {
		out[i] = un(x)
	}
	return out
}

func unm(a backend.Mat) backend.Mat { a.Buf = un(a.Buf); return a }

func (d *Device) Name() string { return d.name }

// Host is false: the values live in the device's buffers.
func (d *Device) Host() bool   { return false }
func (d *Device) Close() error { return nil }
func (d *Device) NewRun()      { d.c.NewRun() }

func (d *Device) Alloc(n int) (backend.Buf, error) {
	if n < 1 {
		return backend.Buf{}, fmt.Errorf("backend: %s: Alloc(%d) (want ≥ 1)", d.name, n)
	}
	return backend.Buf{Mem: &mem{make([]float32, n)}}, nil
}

func (d *Device) Free(b backend.Buf) error {
	if _, ok := b.Mem.(*mem); !ok {
		return fmt.Errorf("backend: %s: Free of a buffer not its own (%T)", d.name, b.Mem)
	}
	return nil
}

func (d *Device) Write(b backend.Buf, src []float32) error { return d.c.Write(un(b), src) }
func (d *Device) Read(dst []float32, b backend.Buf) error  { return d.c.Read(dst, un(b)) }

func (d *Device) WriteAsync(b backend.Buf, src []float32) error { return d.c.Write(un(b), src) }

func (d *Device) ReadAsync(dst []float32, b backend.Buf) (backend.Pending, error) {
	return d.c.ReadAsync(dst, un(b))
}

func (d *Device) Map(f backend.Fn, y, x backend.Buf, n int) error {
	return d.c.Map(f, un(y), un(x), n)
}

func (d *Device) MapGrad(f backend.Fn, dx, y, g backend.Buf, n int) error {
	return d.c.MapGrad(f, un(dx), un(y), un(g), n)
}

func (d *Device) Add(y, a, b backend.Buf, n int) error {
	return d.c.Add(un(y), un(a), un(b), n)
}

func (d *Device) Sub(y, a, b backend.Buf, n int) error {
	return d.c.Sub(un(y), un(a), un(b), n)
}

func (d *Device) Mul(y, a, b backend.Buf, n int) error {
	return d.c.Mul(un(y), un(a), un(b), n)
}

func (d *Device) Fill(y backend.Buf, v float64, n int) error {
	return d.c.Fill(un(y), v, n)
}

func (d *Device) DropoutMask(y backend.Buf, seed uint64, p float64, n int) error {
	return d.c.DropoutMask(un(y), seed, p, n)
}

func (d *Device) Scale(y, x backend.Buf, alpha float64, n int) error {
	return d.c.Scale(un(y), un(x), alpha, n)
}

func (d *Device) Gemm(m, n, k int, alpha float64, a, b backend.Mat, beta float64, c backend.Mat) error {
	return d.c.Gemm(m, n, k, alpha, unm(a), unm(b), beta, unm(c))
}

func (d *Device) BiasAdd(y, x, b backend.Buf, rows, n int) error {
	return d.c.BiasAdd(un(y), un(x), un(b), rows, n)
}

func (d *Device) SumMid(y, x backend.Buf, B, S, n int) error {
	return d.c.SumMid(un(y), un(x), B, S, n)
}

func (d *Device) MatVec(m, n int, a backend.Mat, x, y backend.Buf, acc bool) error {
	return d.c.MatVec(m, n, unm(a), un(x), un(y), acc)
}

func (d *Device) Bmv(y, X, v backend.Buf, B, S, D, h int, c float64) error {
	return d.c.Bmv(un(y), un(X), un(v), B, S, D, h, c)
}

func (d *Device) WSum(y, w, X backend.Buf, B, S, D, h int, c float64) error {
	return d.c.WSum(un(y), un(w), un(X), B, S, D, h, c)
}

func (d *Device) Outer(y, w, v backend.Buf, B, S, D, h int, c float64, acc bool) error {
	return d.c.Outer(un(y), un(w), un(v), B, S, D, h, c, acc)
}

func (d *Device) GroupSum(y, x backend.Buf, B, S, h int, c float64) error {
	return d.c.GroupSum(un(y), un(x), B, S, h, c)
}

func (d *Device) RepeatRows(y, x backend.Buf, B, S, h int, c float64) error {
	return d.c.RepeatRows(un(y), un(x), B, S, h, c)
}

func (d *Device) AddTanh(y, P, u, c backend.Buf, B, S, A int) error {
	return d.c.AddTanh(un(y), un(P), un(u), un(c), B, S, A)
}

func (d *Device) AdditiveDelta(y, T, v, g backend.Buf, N, A int, acc bool) error {
	return d.c.AdditiveDelta(un(y), un(T), un(v), un(g), N, A, acc)
}

func (d *Device) SumSquares(xs []backend.Buf, ns []int, out []float64) error {
	return d.c.SumSquares(uns(xs), ns, out)
}

func (d *Device) SGD(p, g backend.Buf, n int, scale, lr float64) error {
	return d.c.SGD(un(p), un(g), n, scale, lr)
}

func (d *Device) RMSProp(p, g, v backend.Buf, n int, c backend.RMSPropConsts) error {
	return d.c.RMSProp(un(p), un(g), un(v), n, c)
}

func (d *Device) Adam(p, g, m, v backend.Buf, n int, c backend.AdamConsts) error {
	return d.c.Adam(un(p), un(g), un(m), un(v), n, c)
}

func (d *Device) MaskedSoftmax(y, x, mask backend.Buf, rows, cols int) error {
	return d.c.MaskedSoftmax(un(y), un(x), un(mask), rows, cols)
}

func (d *Device) SoftmaxGrad(dx, y, g backend.Buf, rows, cols int) error {
	return d.c.SoftmaxGrad(un(dx), un(y), un(g), rows, cols)
}

func (d *Device) MaskFill(y, x, mask backend.Buf, v float64, n int) error {
	return d.c.MaskFill(un(y), un(x), un(mask), v, n)
}

func (d *Device) LogSoftmax(y, z backend.Buf, rows, cols int) error {
	return d.c.LogSoftmax(un(y), un(z), rows, cols)
}

func (d *Device) SoftmaxXent(out, loss, z, t, m, eps backend.Buf, c float64, rows, cols int) error {
	return d.c.SoftmaxXent(un(out), un(loss), un(z), un(t), un(m), un(eps), c, rows, cols)
}

func (d *Device) SoftmaxXentGrad(dz, z, t, m, eps, g backend.Buf, c float64, rows, cols int) error {
	return d.c.SoftmaxXentGrad(un(dz), un(z), un(t), un(m), un(eps), un(g), c, rows, cols)
}

func (d *Device) Argmax(out, x backend.Buf, rows, cols int) error {
	return d.c.Argmax(un(out), un(x), rows, cols)
}

func (d *Device) L2Norm(y, x backend.Buf, eps float64, rows, cols int) error {
	return d.c.L2Norm(un(y), un(x), eps, rows, cols)
}

func (d *Device) L2Grad(dx, x, g backend.Buf, eps float64, rows, cols int) error {
	return d.c.L2Grad(un(dx), un(x), un(g), eps, rows, cols)
}

func (d *Device) ScaleBy(y, x, gamma backend.Buf, n int) error {
	return d.c.ScaleBy(un(y), un(x), un(gamma), n)
}

func (d *Device) Dot(out, a, b backend.Buf, n int) error {
	return d.c.Dot(un(out), un(a), un(b), n)
}

func (d *Device) Copy2D(dst backend.Buf, dOff, dLd int, src backend.Buf, sOff, sLd, rows, cols int) error {
	return d.c.Copy2D(un(dst), dOff, dLd, un(src), sOff, sLd, rows, cols)
}

func (d *Device) Stack(dst backend.Buf, xs []backend.Buf, n int) error {
	return d.c.Stack(un(dst), uns(xs), n)
}

func (d *Device) Embed(out, E, ids backend.Buf, V, D, N int) error {
	return d.c.Embed(un(out), un(E), un(ids), V, D, N)
}

func (d *Device) EmbedGrad(dE, g, ids backend.Buf, V, D, N int, acc bool) error {
	return d.c.EmbedGrad(un(dE), un(g), un(ids), V, D, N, acc)
}

func (d *Device) Im2Col(out, x backend.Buf, geo backend.ConvGeom, B, C int) error {
	return d.c.Im2Col(un(out), un(x), geo, B, C)
}

func (d *Device) Col2Im(out, g backend.Buf, geo backend.ConvGeom, B, C int) error {
	return d.c.Col2Im(un(out), un(g), geo, B, C)
}

func (d *Device) GRUGates(gates backend.Buf, xs []backend.Buf, hh, b, bhn, tmp backend.Buf, B, H int) error {
	return d.c.GRUGates(un(gates), uns(xs), un(hh), un(b), un(bhn), un(tmp), B, H)
}

func (d *Device) GRUGatesBack(out, gates, g backend.Buf, B, H int, dh bool) error {
	return d.c.GRUGatesBack(un(out), un(gates), un(g), B, H, dh)
}

func (d *Device) GRUBlend(out, gates, h backend.Buf, B, H int) error {
	return d.c.GRUBlend(un(out), un(gates), un(h), B, H)
}

func (d *Device) GRUBlendDG(out, gates, h, g backend.Buf, B, H int) error {
	return d.c.GRUBlendDG(un(out), un(gates), un(h), un(g), B, H)
}

func (d *Device) GRUBlendDH(out, gates, g backend.Buf, B, H int, acc bool) error {
	return d.c.GRUBlendDH(un(out), un(gates), un(g), B, H, acc)
}

func (d *Device) ColSums(y backend.Buf, yOff int, x backend.Buf, xOff, ld, rows, cols int, acc bool) error {
	return d.c.ColSums(un(y), yOff, un(x), xOff, ld, rows, cols, acc)
}

func (d *Device) GRUSeq(out, xw backend.Buf, u backend.Mat, b, bhn, h0, keep backend.Buf, B, S, H int, reverse bool, hh, ut backend.Buf) error {
	return d.c.GRUSeq(un(out), un(xw), unm(u), un(b), un(bhn), un(h0), un(keep), B, S, H, reverse, un(hh), un(ut))
}

func (d *Device) GRUSeqBack(dxi, dhh, hprev, carry backend.Buf, fwd, gr backend.Buf, u backend.Mat, h0, keep backend.Buf, B, S, H int, reverse bool, dhp backend.Buf) error {
	return d.c.GRUSeqBack(un(dxi), un(dhh), un(hprev), un(carry), un(fwd), un(gr), unm(u), un(h0), un(keep), B, S, H, reverse, un(dhp))
}
