package device

import (
	"fmt"
	"strings"

	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/opencl"
)

// ListRow is one OpenCL device of `attnzoo devices --json` (under
// "opencl").
type ListRow struct {
	Key          string `json:"key"` // the device = / --device value
	Platform     string `json:"platform"`
	Name         string `json:"name"`
	Type         string `json:"type"`
	MemoryBytes  uint64 `json:"memory_bytes"`
	ComputeUnits uint32 `json:"compute_units"`
	FP64         bool   `json:"fp64"`
	HostUnified  bool   `json:"host_unified_memory"`
	GPU          string `json:"gpu,omitempty"` // its gpu:N name, for a GPU
}

// list is the "opencl" driver's listing (backend.Driver.List): each
// platform's devices (opencl:P:D), then the GPUs in gpu:N order.
func list() backend.Listing {
	ps, err := opencl.Platforms()
	l := backend.Listing{JSON: listRows(ps)}
	if err != nil {
		l.Err = err
		l.Text = fmt.Sprintf("OpenCL:      none: %v\n", err)
		return l
	}
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "platform %d:  %s (%s, %s)\n", p.Index, p.Name, p.Vendor, p.Version)
		if len(p.Devices) == 0 {
			fmt.Fprintln(&b, "  no devices")
		}
		for _, d := range p.Devices {
			fp64 := "no"
			if d.FP64 {
				fp64 = "yes"
			}
			fmt.Fprintf(&b, "  %-11s %-5s %s: %.1f GiB, %d compute units, fp64 %s\n",
				d.Key(), d.Type, d.Name, float64(d.GlobalMem)/(1<<30), d.ComputeUnits, fp64)
		}
	}
	gs := GPUs(ps)
	for i, d := range gs {
		kind := "discrete"
		if d.HostUnified {
			kind = "shares the host's memory"
		}
		fmt.Fprintf(&b, "gpu:%-8d %s %s (%s)\n", i, d.Key(), d.Name, kind)
	}
	choices := strings.Join(backend.Choices(), ", ")
	if len(gs) == 0 {
		fmt.Fprintf(&b, "device = \"gpu\": OpenCL lists no GPU here; choices: %s\n", choices)
	} else {
		fmt.Fprintf(&b, "device = \"gpu\" takes gpu:0 (discrete cards first); with --workers, worker w takes gpu:(w mod %d); choices: %s\n",
			len(gs), choices)
	}
	l.Text = b.String()
	return l
}

// listRows are the platforms' devices as ListRows.
func listRows(ps []opencl.Platform) []ListRow {
	gpuName := map[string]string{}
	for i, d := range GPUs(ps) {
		gpuName[d.Key()] = fmt.Sprintf("gpu:%d", i)
	}
	var rows []ListRow
	for _, p := range ps {
		for _, d := range p.Devices {
			rows = append(rows, ListRow{d.Key(), p.Name, d.Name, d.Type.String(), d.GlobalMem, d.ComputeUnits, d.FP64, d.HostUnified, gpuName[d.Key()]})
		}
	}
	return rows
}
