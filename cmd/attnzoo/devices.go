package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/attnzoo/attnzoo/internal/device"
	"github.com/attnzoo/attnzoo/internal/opencl"
)

// deviceRow is one device of `attnzoo devices --json`.
type deviceRow struct {
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

func cmdDevices(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("attnzoo devices", stderr,
		"usage: attnzoo devices [--json]",
		"Lists the devices a run can name with device = or --device: cpu, each OpenCL platform's devices (opencl:P:D), and the GPUs in gpu:N order.")
	asJSON := fs.Bool("json", false, "print one JSON object: the OpenCL devices and, without any, why")
	if help, err := parseNoArgs(fs, "devices", args); help || err != nil {
		return err
	}
	ps, err := opencl.Platforms()
	var rows []deviceRow
	gpuName := map[string]string{}
	for i, d := range device.GPUs(ps) {
		gpuName[d.Key()] = fmt.Sprintf("gpu:%d", i)
	}
	for _, p := range ps {
		for _, d := range p.Devices {
			rows = append(rows, deviceRow{d.Key(), p.Name, d.Name, d.Type.String(), d.GlobalMem, d.ComputeUnits, d.FP64, d.HostUnified, gpuName[d.Key()]})
		}
	}
	if *asJSON {
		out := struct {
			OpenCL []deviceRow `json:"opencl"`
			Error  string      `json:"error,omitempty"`
		}{OpenCL: rows}
		if err != nil {
			out.Error = err.Error()
		}
		b, _ := json.Marshal(out)
		fmt.Fprintln(stdout, string(b))
		return nil
	}
	fmt.Fprintln(stdout, "cpu          the cpu device (trains today)")
	if err != nil {
		fmt.Fprintf(stdout, "OpenCL:      none: %v\n", err)
		return nil
	}
	for _, p := range ps {
		fmt.Fprintf(stdout, "platform %d:  %s (%s, %s)\n", p.Index, p.Name, p.Vendor, p.Version)
		if len(p.Devices) == 0 {
			fmt.Fprintln(stdout, "  no devices")
		}
		for _, d := range p.Devices {
			fp64 := "no"
			if d.FP64 {
				fp64 = "yes"
			}
			fmt.Fprintf(stdout, "  %-11s %-5s %s: %.1f GiB, %d compute units, fp64 %s\n",
				d.Key(), d.Type, d.Name, float64(d.GlobalMem)/(1<<30), d.ComputeUnits, fp64)
		}
	}
	gs := device.GPUs(ps)
	for i, d := range gs {
		kind := "discrete"
		if d.HostUnified {
			kind = "shares the host's memory"
		}
		fmt.Fprintf(stdout, "gpu:%-8d %s %s (%s)\n", i, d.Key(), d.Name, kind)
	}
	if len(gs) == 0 {
		fmt.Fprintf(stdout, "device = \"gpu\": OpenCL lists no GPU here; choices: %s\n", device.Choices)
	} else {
		fmt.Fprintf(stdout, "device = \"gpu\" takes gpu:0 (discrete cards first); with --workers, worker w takes gpu:(w mod %d); choices: %s\n",
			len(gs), device.Choices)
	}
	return nil
}
