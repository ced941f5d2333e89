// Package backend is the seam between the engine's ops and the hardware
// that computes them. A Backend computes the engine's primitives — matrix
// products, elementwise maps, row-wise reductions, gathers, the fused
// recurrent steps, the optimizers' updates — as typed methods on its own
// buffers; an op of the engine (internal/gx) is one forward written against
// this interface and its gradient, and runs on every backend.
//
// Backends register by name, as database/sql's drivers do (spec.go): the
// cpu backend (package cpu: the kern kernels, AVX-512 products, plain Go
// for float64) and the OpenCL backend (package device: the .cl kernels and
// CLBlast, as "opencl" and "gpu"). A test may register one of its own (a
// wrapper counting calls, say) from a _test.go file. A device
// specification — the device key of an experiment file, --device — names
// one by the name before its first colon ("opencl:0:1" opens "opencl" with
// "0:1").
//
// The interface is the union of its families, one file each.
package backend

// Buf is a span of a backend's memory. On a host backend one of F32 and F64
// holds the values (the backend's dtype decides which); on a device Mem is
// the device's buffer and the values are float32.
type Buf struct {
	F32 []float32
	F64 []float64
	Mem Mem
}

// Mem is a buffer in a device's memory: Len float32 values.
type Mem interface{ Len() int }

// Len is the number of values the span holds.
func (b Buf) Len() int {
	if b.Mem != nil {
		return b.Mem.Len()
	}
	return len(b.F32) + len(b.F64)
}

// Host returns a host buffer over x ([]float32 or []float64).
func Host[T float32 | float64](x []T) Buf {
	switch v := any(x).(type) {
	case []float32:
		return Buf{F32: v}
	case []float64:
		return Buf{F64: v}
	}
	panic("unreachable")
}

// Backend is everything the engine computes with.
type Backend interface {
	Core
	Elementwise
	Gemm
	Attention
	Optim
	Rows
	Copy
	Gather
	GRU
}

// Core is a backend's identity and memory.
type Core interface {
	Memory
	// Name names the backend: "cpu", or "opencl:P:D (NAME)".
	Name() string
	// Host reports whether the backend computes on Go slices (Buf.F32,
	// Buf.F64) in the process's memory; a device backend's values live in
	// its Mem and cross to the host only through Read and Write.
	Host() bool
	// Close releases what the backend holds (a device's context); the
	// backend is not used afterwards.
	Close() error
	// NewRun tells the backend that a machine's run begins (Machine.Run;
	// not RunAgain): the weights marked Const (Mat.Const) may have changed
	// since the last, so whatever it prepared from them is stale. A backend
	// that prepares nothing does nothing.
	NewRun()
}

// Opener opens a backend from the rest of a device specification (after
// "name:"; empty for a bare name).
type Opener func(rest string) (Backend, error)

// Register makes a backend available by name, opened by open from a bare
// name or "name:rest" (Driver's other fields left out: no listing, float32
// models only). It panics if the name is empty or taken, as
// database/sql.Register does.
func Register(name string, open Opener) {
	RegisterDriver(name, Driver{Open: func(rest string, _ int) (Backend, error) { return open(rest) }})
}

// Sited is the ability of a backend to keep what the launches of one call
// site of the engine need from run to run — a compiled graph's step, whose
// op computes on the same buffers at every run — so that launching there
// again costs less (the OpenCL backend keeps a kernel object per launch
// with its arguments set: internal/device/sites.go). The machine brackets
// each step's forward with At(its site) and At(nil); a backend method is
// written the same either way.
type Sited interface {
	// NewSite returns a new call site; the caller releases it.
	NewSite() Site
	// At directs the launches that follow to site s, in the order they are
	// made, until At(nil).
	At(s Site)
}

// Site is a call site of a Sited backend.
type Site interface{ Release() error }

// Fuser is a backend's declaration of the fused ops of the engine it runs,
// by name (FuseStackedGrads, …): the graph builder (internal/gx) builds
// the fused form of a computation for a backend that names it, and the
// unfused chain of ops for one that does not. It is optional: a backend
// without it gets every computation unfused.
type Fuser interface {
	Fuses(op string) bool
}

// FuseStackedGrads is the gradient of a weight read at many positions (a
// decoder's steps) as one product over the positions' rows stacked, and a
// bias's as one column sum, instead of one a position (internal/gx,
// stacked.go). It is built of Stack, Gemm and ColSums: a backend declares
// it where one product on the stack costs less than the products it
// replaces (the OpenCL backend stacks eight blocks a launch).
const FuseStackedGrads = "StackedGrads"

// FuseAttention is one decoder position's attention — score, masked
// softmax, context — as one op each way (internal/gx's Attention, run by
// FusedAttention's Attend and AttendBack), for one head;
// FuseAttentionHeads is the same for the dot score with several heads.
const (
	FuseAttention      = "Attention"
	FuseAttentionHeads = "AttentionHeads"
)

// FuseUnstack is StackRows' gradient — the stacked gradient's block of
// each position — as views of the stacked gradient instead of a copy a
// position (internal/gx, ops_rows.go): on the host the views are offsets
// in the machine's memory, on a device they need Viewer, and where neither
// holds (an offset the device cannot start a view at) the block is copied.
const FuseUnstack = "Unstack"

// Viewer is the ability of a device backend to give a span of one of its
// buffers as a buffer of its own, sharing its memory (OpenCL's
// sub-buffers): what is written through one is read through the other.
type Viewer interface {
	// ViewAt reports whether a view may start at offset off (in values).
	ViewAt(off int) bool
	// View returns values [off, off+n) of x. The machine frees a view
	// (Free) before x.
	View(x Buf, off, n int) (Buf, error)
}

// Fuses reports whether backend be declares the fused op named op (Fuser).
func Fuses(be Backend, op string) bool {
	f, ok := be.(Fuser)
	return ok && f.Fuses(op)
}
