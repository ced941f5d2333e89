package device

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/attnzoo/attnzoo/internal/opencl"
)

// The environment variables that tune CLBlast's products on every OpenCL
// device a process opens (docs/gpu.md). They belong to the machine, not to
// an experiment, as OPENBLAS_CORETYPE does: the same experiment file runs
// tuned on one card and with CLBlast's defaults on another.
const (
	// EnvCLBlastTuning lists CLBlast tuners' JSON files, or folders of
	// them, separated by ':' (opencl.ReadCLBlastTuning).
	EnvCLBlastTuning = "ATTNZOO_CLBLAST_TUNING"
	// EnvCLBlastMinIndirect is CLBlast's direct/indirect threshold for
	// products: m·n·k below its cube runs the direct kernel
	// (XGEMM_MIN_INDIRECT_SIZE of its GemmRoutine).
	EnvCLBlastMinIndirect = "ATTNZOO_CLBLAST_MIN_INDIRECT"
)

// clblastFromEnv is the tuning the environment asks for (nil: none).
func clblastFromEnv() (opencl.CLBlastParams, error) {
	p := opencl.CLBlastParams{}
	if v := os.Getenv(EnvCLBlastTuning); v != "" {
		t, err := opencl.ReadCLBlastTuning(filepath.SplitList(v)...)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", EnvCLBlastTuning, err)
		}
		p = t
	}
	if v := os.Getenv(EnvCLBlastMinIndirect); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%s=%q: want a whole number ≥ 1 (m·n·k below its cube runs CLBlast's direct kernel)", EnvCLBlastMinIndirect, v)
		}
		p.Set("GemmRoutine", "XGEMM_MIN_INDIRECT_SIZE", n)
	}
	if len(p) == 0 {
		return nil, nil
	}
	return p, nil
}
