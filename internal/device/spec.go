package device

import (
	"slices"

	"fmt"
	"github.com/attnzoo/attnzoo/internal/backend"
	"strconv"
	"strings"

	"github.com/attnzoo/attnzoo/internal/opencl"
)

// Spec is a device choice: the `device` key of an experiment file and the
// --device flag.
//
//	"cpu"         the cpu device
//	"gpu"         a GPU: the first in GPUs' order (discrete cards first); a
//	              sweep's worker w takes GPU w mod the number of GPUs
//	"gpu:N"       GPU N in GPUs' order, for every worker
//	"opencl:P:D"  device D of OpenCL platform P (see `attnzoo devices`)
type Spec struct {
	Kind     string // "cpu", "gpu", "opencl", or a backend registered by name
	Platform int    // P, for "opencl"
	Device   int    // D, for "opencl"; N, for "gpu:N"
	Nth      bool   // "gpu:N" rather than "gpu"
	// Worker is the sweep worker that opens the device (0 outside a
	// sweep): "gpu" spreads workers over the GPUs. Not part of the choice
	// as written.
	Worker int
}

// Choices lists the device choices, for messages.
const Choices = "cpu, gpu, gpu:N, opencl:P:D"

// ParseSpec parses a device choice; it is the one place that decides which
// names are devices. It does not look for the device (Resolve does).
func ParseSpec(s string) (Spec, error) {
	switch s {
	case "cpu", "gpu":
		return Spec{Kind: s}, nil
	case "cuda":
		return Spec{}, fmt.Errorf(`"cuda" is not supported: gorgonia's CUDA path does not build against CUDA 12 or 13; `+
			`NVIDIA cards run through their driver's OpenCL: use "gpu" (have: %s)`, Choices)
	}
	if ns, ok := strings.CutPrefix(s, "gpu:"); ok {
		n, err := strconv.Atoi(ns)
		if err != nil || n < 0 {
			return Spec{}, fmt.Errorf("%q: want gpu:N with N ≥ 0, the GPU's place in `attnzoo devices`' GPU list, e.g. gpu:1", s)
		}
		return Spec{Kind: "gpu", Device: n, Nth: true}, nil
	}
	if rest, ok := strings.CutPrefix(s, "opencl:"); ok {
		ps, ds, ok := strings.Cut(rest, ":")
		p, err1 := strconv.Atoi(ps)
		d, err2 := strconv.Atoi(ds)
		if !ok || err1 != nil || err2 != nil || p < 0 || d < 0 {
			return Spec{}, fmt.Errorf("%q: want opencl:P:D with a platform P and a device D ≥ 0, e.g. opencl:0:0 (see attnzoo devices)", s)
		}
		return Spec{Kind: "opencl", Platform: p, Device: d}, nil
	}
	if s != "opencl" && slices.Contains(backend.Names(), s) {
		return Spec{Kind: s}, nil // a backend registered by name (a test's, say)
	}
	return Spec{}, fmt.Errorf("unknown %q (have: %s)", s, strings.Join(Kinds(), ", "))
}

// Kinds returns the device choices as written: Choices, then each other
// backend registered by name (`attnzoo list` shows them).
func Kinds() []string {
	out := strings.Split(Choices, ", ")
	for _, n := range backend.Names() {
		if n != "cpu" && n != "opencl" {
			out = append(out, n)
		}
	}
	return out
}

// OpenCL reports whether the choice is an OpenCL device ("gpu",
// "opencl:P:D"), not the cpu or another registered backend.
func (s Spec) OpenCL() bool { return s.Kind == "gpu" || s.Kind == "opencl" }

// OpenBackend opens the backend the choice s names for one run: nil for
// "cpu" (each arena's own cpu backend), the OpenCL device as a backend, or
// the backend registered under the name. Close it when the run ends.
func OpenBackend(s Spec) (backend.Backend, error) {
	switch {
	case s.Kind == "cpu":
		return nil, nil
	case s.OpenCL():
		o, err := Open(s)
		if err != nil {
			return nil, err
		}
		return o.Backend(), nil
	}
	return backend.Open(s.Kind)
}

// String is the choice as written: "cpu", "gpu", "gpu:N", "opencl:P:D".
func (s Spec) String() string {
	switch {
	case s.Kind == "opencl":
		return fmt.Sprintf("opencl:%d:%d", s.Platform, s.Device)
	case s.Kind == "gpu" && s.Nth:
		return fmt.Sprintf("gpu:%d", s.Device)
	}
	return s.Kind
}

// GPUs are the devices of type GPU, discrete ones first (HostUnified
// false: their own memory, as NVIDIA's and AMD's cards), each group in the
// loader's order: "gpu:N" is the Nth of them.
func GPUs(ps []opencl.Platform) []opencl.Device {
	var discrete, unified []opencl.Device
	for _, p := range ps {
		for _, d := range p.Devices {
			switch {
			case d.Type&opencl.TypeGPU == 0:
			case d.HostUnified:
				unified = append(unified, d)
			default:
				discrete = append(discrete, d)
			}
		}
	}
	return append(discrete, unified...)
}

// Resolve finds the OpenCL device a "gpu", "gpu:N" or "opencl:P:D" choice
// names. With no such device the error lists the platforms and devices
// found and says how to get a driver.
func Resolve(s Spec) (opencl.Device, error) {
	if !s.OpenCL() {
		return opencl.Device{}, fmt.Errorf("device: %q is not an OpenCL device", s)
	}
	ps, err := opencl.Platforms()
	if err != nil {
		return opencl.Device{}, fmt.Errorf("device %q: %w", s, err)
	}
	return choose(s, ps)
}

// choose is Resolve among the platforms ps.
func choose(s Spec, ps []opencl.Platform) (opencl.Device, error) {
	what := fmt.Sprintf("no OpenCL device %d on platform %d", s.Device, s.Platform)
	if s.Kind == "gpu" {
		gs := GPUs(ps)
		switch {
		case len(gs) > 0 && !s.Nth:
			return gs[s.Worker%len(gs)], nil
		case s.Nth && s.Device < len(gs):
			return gs[s.Device], nil
		case s.Nth && len(gs) > 0:
			return opencl.Device{}, fmt.Errorf("device %q: OpenCL lists %d GPUs, gpu:0 to gpu:%d (%s); found: %s",
				s, len(gs), len(gs)-1, gpuList(gs), Found(ps))
		}
		what = "no OpenCL device of type GPU"
	}
	for _, p := range ps {
		for _, d := range p.Devices {
			if s.Kind == "opencl" && d.Platform == s.Platform && d.Index == s.Device {
				return d, nil
			}
		}
	}
	return opencl.Device{}, fmt.Errorf("device %q: %s; found: %s. For a GPU, install its vendor's OpenCL driver "+
		"(NVIDIA: the driver's libnvidia-opencl.so.1 named in /etc/OpenCL/vendors/nvidia.icd, see docs/gpu.md; "+
		"Debian's nvidia-opencl-icd only with Debian's own driver; AMD: ROCm's OpenCL runtime; Intel: intel-opencl-icd); "+
		"`attnzoo devices` lists what OpenCL sees", s, what, Found(ps))
}

// gpuList names each GPU as "gpu:N = opencl:P:D NAME".
func gpuList(gs []opencl.Device) string {
	out := make([]string, len(gs))
	for i, d := range gs {
		out[i] = fmt.Sprintf("gpu:%d = %s %q", i, d.Key(), d.Name)
	}
	return strings.Join(out, ", ")
}

// Found summarises platforms and their devices in one line:
// `platform 0 "Portable Computing Language": opencl:0:0 cpu "cpu-haswell-…"`.
func Found(ps []opencl.Platform) string {
	var parts []string
	for _, p := range ps {
		ds := make([]string, len(p.Devices))
		for i, d := range p.Devices {
			ds[i] = fmt.Sprintf("%s %s %q", d.Key(), d.Type, d.Name)
		}
		if len(ds) == 0 {
			ds = []string{"no devices"}
		}
		parts = append(parts, fmt.Sprintf("platform %d %q: %s", p.Index, p.Name, strings.Join(ds, ", ")))
	}
	if len(parts) == 0 {
		return "no platforms"
	}
	return strings.Join(parts, "; ")
}

// CanTrain reports whether runs can train on the device choice s: the cpu
// always; "gpu" or "opencl:P:D" when OpenCL finds the device (else
// Resolve's error, naming what it found and how to get a driver).
func CanTrain(s Spec) error {
	if !s.OpenCL() {
		return nil
	}
	_, err := Resolve(s)
	return err
}

// Open opens the device choice s for one run: nil for the cpu (the engine's
// own host machine), else an OpenCL device of its own (a context, a command
// queue and the kernels built for it). Close it when the run ends.
func Open(s Spec) (*OpenCL, error) {
	if !s.OpenCL() {
		return nil, nil
	}
	d, err := Resolve(s)
	if err != nil {
		return nil, err
	}
	return NewOpenCL(d)
}
