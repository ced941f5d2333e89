package opencl

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A tuner file as CLBlast 1.5.3's tuners write it (src/tuning/tuning.cpp:
// metadata as strings, then the timings; the fields read are
// kernel_family, precision and best_parameters).
func tunerJSON(family, precision, best string) string {
	return `{
  "kernel_family": "` + family + `",
  "precision": "` + precision + `",
  "best_kernel": "Xgemm",
  "best_time": "0.12",
  "best_parameters": "` + best + `",
  "results": [
    { "kernel": "Xgemm", "time": 0.120, "parameters": {"MWG": 32} }
  ]
}
`
}

// TestReadCLBlastTuning: xgemm_1 and xgemm_2 both tune CLBlast's "Xgemm"
// (their parameters merged: 3 + 2 = 5), xgemm_direct_1 tunes
// "XgemmDirect", the routine tuner's timings (no best_parameters) are
// skipped in a folder; a float64 file, a bad pair and a missing folder are
// errors naming the file.
func TestReadCLBlastTuning(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("clblast_xgemm_1_32.json", tunerJSON("xgemm_1", "32", "KWG=32 MWG=64 NWG=64"))
	write("clblast_xgemm_2_32.json", tunerJSON("xgemm_2", "32", "VWM=4 VWN=2"))
	write("clblast_xgemm_direct_1_32.json", tunerJSON("xgemm_direct_1", "32", "WGD=32 VWMD=2"))
	write("clblast_gemm_routine_single_size_32.json", `{
  "kernel_family": "gemm_routine_single_size",
  "precision": "32",
  "arg_m": "256"
}`)
	p, err := ReadCLBlastTuning(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := CLBlastParams{"Xgemm": {"KWG": 32, "MWG": 64, "NWG": 64, "VWM": 4, "VWN": 2}, "XgemmDirect": {"WGD": 32, "VWMD": 2}}
	if len(p) != len(want) {
		t.Fatalf("read %v, want %v", p, want)
	}
	for k, ps := range want {
		for n, v := range ps {
			if p[k][n] != v || len(p[k]) != len(ps) {
				t.Errorf("%s: %v, want %v", k, p[k], ps)
			}
		}
	}
	for _, c := range []struct{ name, text, want string }{
		{"clblast_xgemm_1_64.json", tunerJSON("xgemm_1", "64", "KWG=32"), "precision 64"},
		{"bad.json", tunerJSON("xgemm_1", "32", "KWG=32 MWG"), `"MWG" is not NAME=count`},
		{"notjson.json", "KWG=32", "not a CLBlast tuner's JSON file"},
	} {
		f := write(c.name, c.text)
		if _, err := ReadCLBlastTuning(f); err == nil || !strings.Contains(err.Error(), c.name) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming the file and %q", c.name, err, c.want)
		}
	}
	if _, err := ReadCLBlastTuning(filepath.Join(dir, "none")); err == nil {
		t.Error("a missing path read without error")
	}
	if _, err := ReadCLBlastTuning(t.TempDir()); err == nil || !strings.Contains(err.Error(), "clblast_*_32.json") {
		t.Errorf("an empty folder: %v, want an error naming the files looked for", err)
	}
}

// TestCLBlastOverride: the parameters reach CLBlast and the threshold
// routes products. The direct kernel is given work-groups of 128×128 =
// 16,384 items (CLBlast's generic XgemmDirect defaults, from
// src/database/kernels/xgemm_direct/xgemm_direct_32.hpp, with every
// dimension and WGD at 128), more than any device launches (OpenCL's
// CL_DEVICE_MAX_WORK_GROUP_SIZE: 4,096 on pocl, 1,024 on NVIDIA's); it
// compiles (one program holds both kernels, so a kernel that cannot
// compile would fail either way) but cannot be enqueued. With the
// threshold at 1 (37·29·41 ≥ 1³) a 37×29×41 product takes the indirect
// kernel and is right; at 1000 (37·29·41 < 1000³) it takes the direct one
// and fails. The overrides hold for the whole process, so the test runs in
// a child.
func TestCLBlastOverride(t *testing.T) {
	if os.Getenv("ATTNZOO_CLBLAST_CHILD") != "1" {
		testContext(t) // skips, or fails under ATTNZOO_REQUIRE_OPENCL=1
		cmd := exec.Command(os.Args[0], "-test.run=^TestCLBlastOverride$", "-test.v")
		cmd.Env = append(os.Environ(), "ATTNZOO_CLBLAST_CHILD=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
		t.Logf("child:\n%s", out)
		return
	}
	c := testContext(t)
	bad := CLBlastParams{"XgemmDirect": {"KWID": 2, "MDIMAD": 128, "MDIMCD": 128, "NDIMBD": 128, "NDIMCD": 128,
		"PADA": 1, "PADB": 1, "VWMD": 1, "VWND": 1, "WGD": 128}}
	if err := c.OverrideCLBlast(bad); err != nil {
		t.Fatal(err)
	}
	const m, n, k = 37, 29, 41
	r := rand.New(rand.NewPCG(5, 6))
	a, b := randSlice(r, m*k), randSlice(r, k*n)
	want := make([]float32, m*n)
	Sgemm(false, false, m, n, k, 1, a, k, b, n, 0, want, n)
	product := func() ([]float32, error) {
		da, db, dc := upload(t, c, a), upload(t, c, b), upload(t, c, make([]float32, m*n))
		defer func() {
			for _, x := range []*Buffer{da, db, dc} {
				x.Release()
			}
		}()
		if err := c.Sgemm(false, false, m, n, k, 1, da, 0, k, db, 0, n, 0, dc, 0, n); err != nil {
			return nil, err
		}
		got := make([]float32, m*n)
		return got, dc.Read(got)
	}
	indirect := CLBlastParams{}
	indirect.Set("GemmRoutine", "XGEMM_MIN_INDIRECT_SIZE", 1)
	if err := c.OverrideCLBlast(indirect); err != nil {
		t.Fatal(err)
	}
	got, err := product()
	if err != nil {
		t.Fatalf("threshold 1: the indirect kernel failed: %v", err)
	}
	if j, ok := closeRel(got, want, 1e-5); !ok {
		t.Fatalf("threshold 1: C[%d] = %v, want %v", j, got[j], want[j])
	}
	direct := CLBlastParams{}
	direct.Set("GemmRoutine", "XGEMM_MIN_INDIRECT_SIZE", 1000)
	if err := c.OverrideCLBlast(direct); err != nil {
		t.Fatal(err)
	}
	if _, err := product(); err == nil {
		t.Fatal("threshold 1000: the product ran, so it did not take the direct kernel of 128×128 work-items")
	} else {
		t.Logf("threshold 1000: %v", err)
	}
	// A partial set is CLBlast's own error, named.
	if err := c.OverrideCLBlast(CLBlastParams{"Xgemm": {"MWG": 64}}); err == nil || !strings.Contains(err.Error(), "CLBlastMissingOverrideParameter") {
		t.Errorf("a partial Xgemm set: %v, want CLBlastMissingOverrideParameter", err)
	}
}
