package opencl

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// CLBlastParams are tuning parameters for CLBlast's kernels, by CLBlast's
// kernel name ("Xgemm", "XgemmDirect", "Copy", "Pad", "Transpose",
// "Padtranspose", and "GemmRoutine" whose one parameter
// XGEMM_MIN_INDIRECT_SIZE is the direct/indirect threshold: a product
// m×n×k below its cube runs the direct kernel), then parameter name.
type CLBlastParams map[string]map[string]int

// Set sets one parameter.
func (p CLBlastParams) Set(kernel, name string, v int) {
	if p[kernel] == nil {
		p[kernel] = map[string]int{}
	}
	p[kernel][name] = v
}

// clblastPrecisionSingle is CLBlastPrecisionSingle (clblast_c.h): attnzoo's
// device products are float32.
const clblastPrecisionSingle = 32

// tunerFile is what CLBlast's tuners write (clblast_<family>_<precision>.json,
// src/tuning/tuning.cpp): the fields read here.
type tunerFile struct {
	KernelFamily   string `json:"kernel_family"`
	Precision      string `json:"precision"`
	BestParameters string `json:"best_parameters"`
}

// ReadCLBlastTuning reads the JSON files CLBlast's tuners write
// (clblast_tuner_xgemm -precision 32 writes clblast_xgemm_1_32.json and
// clblast_xgemm_2_32.json, clblast_tuner_xgemm_direct
// clblast_xgemm_direct_1_32.json and _2_, …), each path a file or a folder
// whose clblast_*_32.json files are read. A family names its kernel as
// CLBlast's own test utilities map it (test/test_utilities.cpp,
// GetBestParametersFromJSONFile): "xgemm_1" and "xgemm_2" both tune
// "Xgemm", their parameters merged; "xgemm_direct_1" tunes "XgemmDirect".
func ReadCLBlastTuning(paths ...string) (CLBlastParams, error) {
	p := CLBlastParams{}
	for _, path := range paths {
		files := []string{path}
		if st, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("opencl: CLBlast tuning: %w", err)
		} else if st.IsDir() {
			files, _ = filepath.Glob(filepath.Join(path, "clblast_*_32.json"))
			if len(files) == 0 {
				return nil, fmt.Errorf("opencl: CLBlast tuning: %s has no clblast_*_32.json (CLBlast's tuners write them; see docs/gpu.md)", path)
			}
		}
		for _, f := range files {
			if err := readTunerFile(f, p); err != nil {
				return nil, err
			}
		}
	}
	return p, nil
}

func readTunerFile(name string, p CLBlastParams) error {
	b, err := os.ReadFile(name)
	if err != nil {
		return fmt.Errorf("opencl: CLBlast tuning: %w", err)
	}
	var t tunerFile
	if err := json.Unmarshal(b, &t); err != nil {
		return fmt.Errorf("opencl: CLBlast tuning: %s: not a CLBlast tuner's JSON file: %w", name, err)
	}
	if strings.HasPrefix(t.KernelFamily, "gemm_routine") && t.BestParameters == "" {
		return nil // the routine tuner's timings per threshold: the threshold itself is set apart (docs/gpu.md)
	}
	if t.KernelFamily == "" || t.BestParameters == "" {
		return fmt.Errorf("opencl: CLBlast tuning: %s: no kernel_family or best_parameters (want a file a CLBlast tuner wrote)", name)
	}
	if t.Precision != "" && t.Precision != "32" {
		return fmt.Errorf("opencl: CLBlast tuning: %s: precision %s; attnzoo's device products are float32 (run the tuner with -precision 32)", name, t.Precision)
	}
	kernel := kernelOfFamily(t.KernelFamily)
	for _, kv := range strings.Fields(t.BestParameters) {
		k, v, ok := strings.Cut(kv, "=")
		n, err := strconv.Atoi(v)
		if !ok || k == "" || err != nil || n < 0 {
			return fmt.Errorf("opencl: CLBlast tuning: %s: best_parameters: %q is not NAME=count", name, kv)
		}
		p.Set(kernel, k, n)
	}
	return nil
}

// kernelOfFamily maps a tuner's kernel family to CLBlast's kernel name as
// CLBlast does: first letter upper case, underscores and the digits 1–3
// dropped, "Xgemmdirect" → "XgemmDirect".
func kernelOfFamily(f string) string {
	var b strings.Builder
	for i, r := range f {
		switch {
		case i == 0:
			b.WriteRune(unicode.ToUpper(r))
		case r == '_' || r == '1' || r == '2' || r == '3':
		default:
			b.WriteRune(r)
		}
	}
	if s := b.String(); s != "Xgemmdirect" {
		return s
	}
	return "XgemmDirect"
}

// OverrideCLBlast gives CLBlast the parameters p for this context's device
// (CLBlastOverrideParameters, float32): the next product compiles its
// kernels with them. Every parameter of a kernel must be given (CLBlast
// refuses a partial set: CLBlastMissingOverrideParameter).
func (c *Context) OverrideCLBlast(p CLBlastParams) error {
	bl, err := loadCLBlast()
	if err != nil {
		return err
	}
	kernels := make([]string, 0, len(p))
	for k := range p {
		kernels = append(kernels, k)
	}
	slices.Sort(kernels)
	clblastMu.Lock()
	defer clblastMu.Unlock()
	for _, k := range kernels {
		names := make([]string, 0, len(p[k]))
		for n := range p[k] {
			names = append(names, n)
		}
		slices.Sort(names)
		cs := make([][]byte, len(names))
		ptrs := make([]*byte, len(names))
		vals := make([]uintptr, len(names))
		for i, n := range names {
			cs[i] = append([]byte(n), 0)
			ptrs[i], vals[i] = &cs[i][0], uintptr(p[k][n])
		}
		kn := append([]byte(k), 0)
		var np **byte
		var vp *uintptr
		if len(names) > 0 {
			np, vp = &ptrs[0], &vals[0]
		}
		code := bl.OverrideParameters(c.Device.id, &kn[0], clblastPrecisionSingle, uintptr(len(names)), np, vp)
		runtime.KeepAlive(cs)
		if err := check("CLBlastOverrideParameters", code); err != nil {
			return fmt.Errorf("%w: kernel %s, parameters %v", err, k, p[k])
		}
	}
	return nil
}
