package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/attnzoo/attnzoo/internal/backend"
)

func cmdDevices(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("attnzoo devices", stderr,
		"usage: attnzoo devices [--json]",
		"Lists the devices a run can name with device = or --device: cpu, then each backend's devices "+
			"(OpenCL: each platform's devices, opencl:P:D, and the GPUs in gpu:N order).")
	asJSON := fs.Bool("json", false, "print one JSON object: each backend's devices under its name (\"opencl\"), and, where one lists none, why (\"error\")")
	if help, err := parseNoArgs(fs, "devices", args); help || err != nil {
		return err
	}
	names, ls := backend.Listings()
	if *asJSON {
		out := map[string]any{}
		for i, l := range ls {
			out[names[i]] = l.JSON
			if l.Err != nil {
				msg := l.Err.Error()
				if len(ls) > 1 {
					msg = names[i] + ": " + msg
				}
				if prev, ok := out["error"].(string); ok {
					msg = prev + "; " + msg
				}
				out["error"] = msg
			}
		}
		b, _ := json.Marshal(out)
		fmt.Fprintln(stdout, string(b))
		return nil
	}
	fmt.Fprintln(stdout, "cpu          the cpu device (trains today)")
	for _, l := range ls {
		fmt.Fprint(stdout, l.Text)
	}
	return nil
}
