package device

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLBlastFromEnv: the two variables become CLBlast parameters (a
// tuner's file read as opencl.ReadCLBlastTuning reads it, the threshold
// as GemmRoutine's XGEMM_MIN_INDIRECT_SIZE); a bad value fails opening a
// device with the variable's name, before anything reaches CLBlast.
func TestCLBlastFromEnv(t *testing.T) {
	t.Setenv(EnvCLBlastTuning, "")
	t.Setenv(EnvCLBlastMinIndirect, "")
	if p, err := clblastFromEnv(); p != nil || err != nil {
		t.Fatalf("unset: %v, %v; want nothing", p, err)
	}
	dir := t.TempDir()
	f := filepath.Join(dir, "clblast_xgemm_direct_1_32.json")
	os.WriteFile(f, []byte(`{"kernel_family": "xgemm_direct_1", "precision": "32", "best_parameters": "WGD=32 KWID=8"}`), 0o644)
	t.Setenv(EnvCLBlastTuning, f)
	t.Setenv(EnvCLBlastMinIndirect, "384")
	p, err := clblastFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if p["XgemmDirect"]["WGD"] != 32 || p["XgemmDirect"]["KWID"] != 8 || p["GemmRoutine"]["XGEMM_MIN_INDIRECT_SIZE"] != 384 || len(p) != 2 {
		t.Errorf("read %v", p)
	}
	for _, c := range []struct{ tuning, min, want string }{
		{"", "0", EnvCLBlastMinIndirect},
		{"", "1e3", EnvCLBlastMinIndirect},
		{filepath.Join(dir, "missing.json"), "", EnvCLBlastTuning},
	} {
		t.Setenv(EnvCLBlastTuning, c.tuning)
		t.Setenv(EnvCLBlastMinIndirect, c.min)
		if _, err := clblastFromEnv(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q, %q: %v, want an error naming %s", c.tuning, c.min, err, c.want)
		}
		if d, err := Resolve(Spec{Kind: "opencl"}); err == nil {
			if o, err := NewOpenCL(d); err == nil || !strings.Contains(err.Error(), c.want) {
				if o != nil {
					o.Close()
				}
				t.Errorf("NewOpenCL with %q, %q: %v, want an error naming %s", c.tuning, c.min, err, c.want)
			}
		}
	}
}
