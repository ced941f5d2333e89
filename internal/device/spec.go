package device

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/opencl"
)

// Spec is an OpenCL device choice, as the backend registry hands it over
// (backend.ParseSpec: "NAME:REST"; this package registers "gpu" and
// "opencl"):
//
//	"gpu"         a GPU: the first in GPUs' order (discrete cards first); a
//	              sweep's worker w takes GPU w mod the number of GPUs
//	"gpu:N"       GPU N in GPUs' order, for every worker
//	"opencl:P:D"  device D of OpenCL platform P (see `attnzoo devices`)
type Spec struct {
	Kind     string // "gpu" or "opencl"
	Platform int    // P, for "opencl"
	Device   int    // D, for "opencl"; N, for "gpu:N"
	Nth      bool   // "gpu:N" rather than "gpu"
	// Worker is the sweep worker that opens the device (0 outside a
	// sweep): "gpu" spreads workers over the GPUs. Not part of the choice
	// as written.
	Worker int
}

func init() {
	for kind, forms := range map[string][]string{"gpu": {"gpu", "gpu:N"}, "opencl": {"opencl:P:D"}} {
		d := backend.Driver{
			Open: func(rest string, worker int) (backend.Backend, error) {
				s, err := parseRest(kind, rest)
				if err != nil {
					return nil, err
				}
				s.Worker = worker
				d, err := Resolve(s)
				if err != nil {
					return nil, err
				}
				o, err := NewOpenCL(d) // a context, a command queue and the kernels, for one run
				if err != nil {
					return nil, err // not a nil *OpenCL in an interface
				}
				return o, nil
			},
			Parse: func(rest string) error { _, err := parseRest(kind, rest); return err },
			Find: func(rest string) error {
				s, err := parseRest(kind, rest)
				if err == nil {
					_, err = Resolve(s)
				}
				return err
			},
			Forms: forms,
		}
		if kind == "opencl" {
			d.List = list
		}
		backend.RegisterDriver(kind, d)
	}
	backend.Refuse("cuda", `"cuda" is not supported: gorgonia's CUDA path does not build against CUDA 12 or 13; `+
		`NVIDIA cards run through their driver's OpenCL: use "gpu"`)
}

// parseRest parses what follows "gpu:" or "opencl:" ("" for a bare name).
func parseRest(kind, rest string) (Spec, error) {
	if kind == "gpu" {
		if rest == "" {
			return Spec{Kind: kind}, nil
		}
		n, err := strconv.Atoi(rest)
		if err != nil || n < 0 {
			return Spec{}, fmt.Errorf("want gpu:N with N ≥ 0, the GPU's place in `attnzoo devices`' GPU list, e.g. gpu:1")
		}
		return Spec{Kind: kind, Device: n, Nth: true}, nil
	}
	ps, ds, ok := strings.Cut(rest, ":")
	p, err1 := strconv.Atoi(ps)
	d, err2 := strconv.Atoi(ds)
	if !ok || err1 != nil || err2 != nil || p < 0 || d < 0 {
		return Spec{}, fmt.Errorf("want opencl:P:D with a platform P and a device D ≥ 0, e.g. opencl:0:0 (see attnzoo devices)")
	}
	return Spec{Kind: kind, Platform: p, Device: d}, nil
}

// String is the choice as written: "gpu", "gpu:N", "opencl:P:D".
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
	if s.Kind != "gpu" && s.Kind != "opencl" {
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
