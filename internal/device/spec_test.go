package device

import (
	"strings"
	"testing"

	"github.com/attnzoo/attnzoo/internal/backend"
	_ "github.com/attnzoo/attnzoo/internal/backend/cpu" // "cpu", for the registry's messages
	"github.com/attnzoo/attnzoo/internal/opencl"
)

// The registry (backend.ParseSpec) takes this package's names, "gpu",
// "gpu:N" and "opencl:P:D", as the OpenCL choices; its errors name the
// forms every registered backend takes.
func TestParseSpec(t *testing.T) {
	for in, want := range map[string]Spec{
		"gpu": {Kind: "gpu"}, "gpu:0": {Kind: "gpu", Nth: true}, "gpu:3": {Kind: "gpu", Device: 3, Nth: true},
		"opencl:0:0": {Kind: "opencl"}, "opencl:1:12": {Kind: "opencl", Platform: 1, Device: 12},
	} {
		kind, rest, _ := strings.Cut(in, ":")
		got, err := parseRest(kind, rest)
		if err != nil || got != want || got.String() != in {
			t.Errorf("parseRest(%q, %q) = %+v, %v; want %+v", kind, rest, got, err, want)
		}
		if s, err := backend.ParseSpec(in); err != nil || s.String() != in || s.Float64() {
			t.Errorf("backend.ParseSpec(%q) = %+v, %v; want it, float32 only", in, s, err)
		}
	}
	if s, err := backend.ParseSpec("cpu"); err != nil || !s.Float64() {
		t.Errorf("backend.ParseSpec(cpu) = %+v, %v; want the cpu, float64 too", s, err)
	}
	for in, want := range map[string][]string{
		"cuda":         {`"cuda" is not supported`, `use "gpu"`, "have: cpu, gpu, gpu:N, opencl:P:D"},
		"gpu:-1":       {"want gpu:N with N ≥ 0"},
		"gpu:x":        {"want gpu:N with N ≥ 0"},
		"tpu":          {`unknown "tpu"`, "have: cpu, gpu, gpu:N, opencl:P:D"},
		"opencl":       {"want opencl:P:D"},
		"opencl:0":     {"want opencl:P:D", "attnzoo devices"},
		"opencl:-1:0":  {"want opencl:P:D"},
		"opencl:a:b":   {"want opencl:P:D"},
		"opencl:0:0:0": {"want opencl:P:D"},
		"":             {`unknown ""`},
		"cpu:0":        {`unknown "cpu:0"`, "have: cpu, gpu, gpu:N, opencl:P:D"},
	} {
		_, err := backend.ParseSpec(in)
		for _, w := range want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("backend.ParseSpec(%q) = %v, want an error containing %q", in, err, w)
			}
		}
	}
}

// "opencl:P:D" finds the listed device; a device that is not there, or
// "gpu" where OpenCL has no GPU (pocl in CI), is an error that lists what
// OpenCL found and how to get a driver.
func TestResolve(t *testing.T) {
	cl := testOpenCL(t)
	ps, err := opencl.Platforms()
	if err != nil {
		t.Fatal(err)
	}
	d, err := Resolve(Spec{Kind: "opencl"})
	if err != nil || d.Name != cl.Device().Name || d.Key() != "opencl:0:0" {
		t.Fatalf("Resolve(opencl:0:0) = %+v, %v", d, err)
	}
	_, err = Resolve(Spec{Kind: "opencl", Platform: len(ps), Device: 0})
	if err == nil || !strings.Contains(err.Error(), "no OpenCL device 0 on platform") || !strings.Contains(err.Error(), d.Name) {
		t.Errorf("Resolve(a platform too many) = %v, want an error listing %q", err, d.Name)
	}
	hasGPU := false
	for _, p := range ps {
		for _, dv := range p.Devices {
			hasGPU = hasGPU || dv.Type&opencl.TypeGPU != 0
		}
	}
	g, err := Resolve(Spec{Kind: "gpu"})
	switch {
	case hasGPU && (err != nil || g.Type&opencl.TypeGPU == 0):
		t.Errorf("Resolve(gpu) = %+v, %v with a GPU listed", g, err)
	case !hasGPU:
		for _, w := range []string{"no OpenCL device of type GPU", "found: platform 0", d.Name, "nvidia.icd"} {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("Resolve(gpu) without a GPU = %v, want an error containing %q", err, w)
			}
		}
	}
}

// fakePlatforms are a machine as the loader might list it: an Intel
// integrated GPU first (its platform loads first), then pocl's CPU, then
// two NVIDIA cards. Only choose reads them; nothing is opened.
func fakePlatforms() []opencl.Platform {
	dev := func(p, i int, name string, typ opencl.DeviceType, unified bool) opencl.Device {
		return opencl.Device{Platform: p, Index: i, Name: name, Type: typ, HostUnified: unified}
	}
	return []opencl.Platform{
		{Index: 0, Name: "Intel(R) OpenCL Graphics", Devices: []opencl.Device{dev(0, 0, "Intel(R) UHD Graphics 770", opencl.TypeGPU, true)}},
		{Index: 1, Name: "Portable Computing Language", Devices: []opencl.Device{dev(1, 0, "cpu-haswell", opencl.TypeCPU, true)}},
		{Index: 2, Name: "NVIDIA CUDA", Devices: []opencl.Device{
			dev(2, 0, "NVIDIA H200", opencl.TypeGPU|opencl.TypeDefault, false),
			dev(2, 1, "NVIDIA H100 80GB HBM3", opencl.TypeGPU, false)}},
	}
}

// "gpu" takes a discrete card over an integrated GPU listed before it;
// "gpu:N" counts the discrete cards first, then the integrated ones; a
// sweep's workers spread over the GPUs round-robin; "gpu:N" past the last
// GPU, or "gpu" with none, says what there is.
func TestChooseGPU(t *testing.T) {
	ps := fakePlatforms()
	for _, c := range []struct {
		spec   Spec
		want   string
		wantOK bool
	}{
		{Spec{Kind: "gpu"}, "opencl:2:0", true},
		{Spec{Kind: "gpu", Worker: 1}, "opencl:2:1", true},
		{Spec{Kind: "gpu", Worker: 2}, "opencl:0:0", true}, // the integrated GPU is the third
		{Spec{Kind: "gpu", Worker: 3}, "opencl:2:0", true}, // 3 mod 3 GPUs
		{Spec{Kind: "gpu", Nth: true, Device: 1}, "opencl:2:1", true},
		{Spec{Kind: "gpu", Nth: true, Device: 1, Worker: 5}, "opencl:2:1", true}, // gpu:N for every worker
		{Spec{Kind: "gpu", Nth: true, Device: 2}, "opencl:0:0", true},
		{Spec{Kind: "opencl", Platform: 1}, "opencl:1:0", true},
		{Spec{Kind: "gpu", Nth: true, Device: 3}, "", false},
	} {
		d, err := choose(c.spec, ps)
		if c.wantOK && (err != nil || d.Key() != c.want) {
			t.Errorf("choose(%v, worker %d) = %s, %v; want %s", c.spec, c.spec.Worker, d.Key(), err, c.want)
		}
		if !c.wantOK {
			for _, w := range []string{`"gpu:3"`, "3 GPUs, gpu:0 to gpu:2", `gpu:0 = opencl:2:0 "NVIDIA H200"`, `gpu:2 = opencl:0:0 "Intel(R) UHD Graphics 770"`} {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("choose(gpu:3) = %v, want an error containing %q", err, w)
				}
			}
		}
	}
	_, err := choose(Spec{Kind: "gpu"}, ps[1:2])
	for _, w := range []string{"no OpenCL device of type GPU", "cpu-haswell", "libnvidia-opencl.so.1"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("choose(gpu) on a machine without a GPU = %v, want an error containing %q", err, w)
		}
	}
}

func TestFound(t *testing.T) {
	if got := Found(nil); got != "no platforms" {
		t.Errorf("Found(nil) = %q", got)
	}
	ps := []opencl.Platform{{Index: 0, Name: "P", Devices: []opencl.Device{{Name: "D", Type: opencl.TypeGPU}}}, {Index: 1, Name: "Q"}}
	want := `platform 0 "P": opencl:0:0 gpu "D"; platform 1 "Q": no devices`
	if got := Found(ps); got != want {
		t.Errorf("Found = %q, want %q", got, want)
	}
}

// A choice's Find (what `attnzoo run` checks before it starts) finds the
// cpu always, and an OpenCL device where it is listed; one that is not
// there is an error saying what OpenCL found.
func TestFind(t *testing.T) {
	find := func(s string) error {
		spec, err := backend.ParseSpec(s)
		if err != nil {
			t.Fatal(err)
		}
		return spec.Find()
	}
	if err := find("cpu"); err != nil {
		t.Errorf("Find(cpu) = %v", err)
	}
	testOpenCL(t)
	if err := find("opencl:0:0"); err != nil {
		t.Errorf("Find(opencl:0:0) = %v, want nil (the device exists)", err)
	}
	err := find("opencl:7:3")
	for _, w := range []string{"no OpenCL device 3 on platform 7", "found:", "attnzoo devices"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("Find(opencl:7:3) = %v, want an error containing %q", err, w)
		}
	}
}

// kernelNames finds every __kernel of kernels/*.cl: as many names as the
// source has "__kernel" keywords, each created by NewOpenCL.
func TestKernelNames(t *testing.T) {
	names := kernelNames()
	if n := strings.Count(kernelSource(), "__kernel"); len(names) != n || n == 0 {
		t.Errorf("kernelNames found %d kernels %v; the source has %d __kernel keywords", len(names), names, n)
	}
}
