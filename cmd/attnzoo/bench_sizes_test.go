package main

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/attnzoo/attnzoo/seq2seq"
)

// TestBenchSizeFlags: a size out of range is a usage error naming its flag,
// before any work.
func TestBenchSizeFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--hidden", "0"}, "--hidden must be ≥ 1, got 0"},
		{[]string{"--batch", "-3"}, "--batch must be ≥ 1, got -3"},
		{[]string{"--src-len", "0"}, "--src-len must be ≥ 1, got 0"},
		{[]string{"--vocab", "4"}, "--vocab must be ≥ 5"},
		{[]string{"--hidden", "big"}, "-hidden"},
		{[]string{"--warmup", "-1"}, "--warmup ≥ 0"},
		{[]string{"--steps", "5", "--warmup", "5"}, "--steps > --warmup (5)"},
	} {
		_, errs, code := runCLI(t, append([]string{"bench"}, tc.args...)...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errs, tc.want)
		}
	}
}

// TestBenchDrawIsAnchor: at the default sizes the bench draws exactly the
// anchor's batches (seq2seq.AnchorBatch) from the same generator.
func TestBenchDrawIsAnchor(t *testing.T) {
	s := anchorSizes()
	if s != (benchSizes{hidden: 128, batch: 64, srcLen: 12, vocab: 32}) {
		t.Fatalf("anchor sizes %+v, want H=128, B=64, S=12, V=32 (bench/README.md)", s)
	}
	r1, r2 := rand.New(rand.NewPCG(1, 1)), rand.New(rand.NewPCG(1, 1))
	for i := 0; i < 3; i++ {
		got, want := s.draw(r1), seq2seq.AnchorBatch(r2)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("batch %d differs from AnchorBatch", i)
		}
	}
}

// TestBenchSizes runs a tiny resized bench and checks the JSON line's sizes
// and parameter count, derived by hand for H = 16, E = 64, V = 9:
//
//	embeddings   2·V·E                     = 1152
//	encoder GRU  3H(E + H + 1) + H         = 3904
//	decoder GRU  3H(E + H + H + 1) + H     = 4672
//	concat       2H·H + H + H              =  544
//	bridge       H·H + H                   =  272
//	attentional  2H·H + H                  =  528
//	vocabulary   V·H + V                   =  153
//	                                   sum = 11225
//
// With --torch, a reference whose sizes or parameter count differ (by more
// than 0.05%) is warned about, naming what differs.
func TestBenchSizes(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	torch := filepath.Join(t.TempDir(), "torch.json")
	os.WriteFile(torch, []byte(`{"system": "pytorch-1.13.0a0", "hidden": 16, "batch": 3, "src_len": 6, "vocab": 9, "params": 11231}`), 0o644)
	out := runOK(t, "bench", "--json", "--hidden", "16", "--batch", "3", "--src-len", "5", "--vocab", "9",
		"--steps", "4", "--warmup", "1", "--reps", "1", "--beam-reps", "1", "--torch", torch)
	// 11231 is 6 (0.053%) more than ours: past the 0.05% bar.
	hasAll(t, "warnings", out, "has src_len 6, attnzoo 5: not the same workload", "has 11231 parameters, attnzoo 11225: not the same model")
	if strings.Contains(out, "has hidden") || strings.Contains(out, "has vocab") || strings.Contains(out, "has batch") {
		t.Errorf("a warning about a size that agrees:\n%s", out)
	}
	line, _, _ := strings.Cut(out, "\n")
	var got benchResult
	if err := json.Unmarshal([]byte(line), &got); err != nil {
		t.Fatalf("not one JSON line: %v\n%s", err, out)
	}
	if got.Hidden != 16 || got.Batch != 3 || got.SrcLen != 5 || got.Vocab != 9 || got.Embed != 64 {
		t.Errorf("sizes %+v, want H=16, B=3, S=5, V=9, E=64", got)
	}
	if got.Params != 11225 {
		t.Errorf("params = %d, want 11225", got.Params)
	}
	if got.StepsTimed != 3 || got.DecodeReps != 1 {
		t.Errorf("steps_timed %d, decode_reps %d; want 3 and 1", got.StepsTimed, got.DecodeReps)
	}
}

// torchPython is a python3 that imports torch, or "" (the test skips).
func torchPython(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("short")
	}
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import torch").Run(); err != nil {
		t.Skipf("%s cannot import torch: %v", py, err)
	}
	return py
}

// TestTorchParams: bench/pytorch/reverse.py's model has the Go model's
// parameter count at each size, exactly (the bar is 0.05%; the script holds
// nn.GRU's redundant bias blocks at zero and does not count them). The
// vocabulary of 300 takes the embeddings past 256 rows.
func TestTorchParams(t *testing.T) {
	py := torchPython(t)
	for _, s := range []benchSizes{anchorSizes(), {hidden: 48, batch: 3, srcLen: 5, vocab: 300}} {
		m, err := seq2seq.New(s.config())
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(py, filepath.Join("..", "..", "bench", "pytorch", "reverse.py"), "--only", "params",
			"--hidden", strconv.Itoa(s.hidden), "--batch", strconv.Itoa(s.batch), "--src-len", strconv.Itoa(s.srcLen), "--vocab", strconv.Itoa(s.vocab))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v\n%s", s, err, stderr.String())
		}
		var line benchLine
		if err := json.Unmarshal(out, &line); err != nil {
			t.Fatalf("%s: %v\n%s", s, err, out)
		}
		if line.Params != m.NumParams() || line.Hidden != s.hidden || line.Vocab != s.vocab {
			t.Errorf("%s: pytorch %+v, attnzoo %d params", s, line, m.NumParams())
		}
	}
}

// TestTableFrom: the table pairs the two systems' lines by size, in the
// order sizes first appear; ratios are attnzoo ÷ PyTorch (30 ÷ 40 = 0.75,
// fastest 24 ÷ 32 = 0.75, 10000 ÷ 5000 = 2.00; 900 ÷ 1000 = 0.90, fastest
// 880 ÷ 800 = 1.10, 300 ÷ 200 = 1.50); counts 0.1%
// apart (4,514,409 against 4,518,923) are flagged; a bad line is an error
// naming the file and line.
func TestTableFrom(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "lines.jsonl")
	lines := `{"system": "pytorch-1.13.0a0", "threads": 1, "hidden": 128, "batch": 64, "src_len": 12, "vocab": 32, "params": 288288, "steps_timed": 50, "ms_step_median": 40.0, "ms_step_min": 32.0, "decode_seq_s": 5000.0}
{"system": "attnzoo", "threads": 2, "blas": "openblas", "blas_threads": 1, "hidden": 128, "batch": 64, "src_len": 12, "vocab": 32, "params": 288288, "steps_timed": 50, "ms_step_median": 30.0, "ms_step_min": 24.0, "decode_seq_s": 10000.0}

{"system": "pytorch-1.13.0a0", "threads": 1, "hidden": 512, "batch": 128, "src_len": 20, "vocab": 1001, "params": 4518923, "steps_timed": 8, "ms_step_median": 1000.0, "ms_step_min": 800.0, "decode_seq_s": 200.0}
{"system": "attnzoo", "threads": 2, "blas": "openblas", "blas_threads": 1, "hidden": 512, "batch": 128, "src_len": 20, "vocab": 1001, "params": 4514409, "steps_timed": 8, "ms_step_median": 900.0, "ms_step_min": 880.0, "decode_seq_s": 300.0}
`
	os.WriteFile(file, []byte(lines), 0o644)
	out := runOK(t, "bench", "--table-from", file)
	hasAll(t, "table", out,
		"| 128 | 64 | 12 | 32 | 288,288 | 50 | 40.0 | 30.0 | 0.75 | 32.0 | 24.0 | 0.75 | 5000 | 10000 | 2.00 |",
		"| 512 | 128 | 20 | 1001 | 4,518,923 / 4,514,409 | 8 | 1000.0 | 900.0 | 0.90 | 800.0 | 880.0 | 1.10 | 200 | 300 | 1.50 |",
		"warning: hidden 512: PyTorch has 4518923 parameters, attnzoo 4514409",
		"PyTorch: pytorch-1.13.0a0, 1 torch thread(s)",
		"attnzoo: BLAS openblas (1 thread(s)), GOMAXPROCS 2",
	)
	if strings.Index(out, "| 128 |") > strings.Index(out, "| 512 |") {
		t.Errorf("rows out of order:\n%s", out)
	}
	os.WriteFile(file, []byte(lines+"Traceback (most recent call last):\n"), 0o644)
	if _, errs, code := runCLI(t, "bench", "--table-from", file); code != 1 || !strings.Contains(errs, "lines.jsonl:6") {
		t.Errorf("bad line: exit %d, stderr %q; want 1 and lines.jsonl:6", code, errs)
	}
	os.WriteFile(file, []byte(`{"system": "jax", "hidden": 128, "batch": 64, "src_len": 12, "vocab": 32}`), 0o644)
	if _, errs, code := runCLI(t, "bench", "--table-from", file); code != 1 || !strings.Contains(errs, `lines.jsonl:1: system "jax"`) {
		t.Errorf("unknown system: exit %d, stderr %q", code, errs)
	}
}

// TestProfiles: --cpuprofile and --memprofile on bench and run write gzip'd
// pprof files (magic bytes 1f 8b); a file that cannot be created is an error
// naming the flag, before any work.
func TestProfiles(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	dir := t.TempDir()
	exp := filepath.Join(dir, "tiny.toml")
	os.WriteFile(exp, []byte(strings.Replace(strings.Replace(killExp, "steps = 120", "steps = 4", 1),
		`scorer = ["dot", "general", "concat"]`, `scorer = ["dot"]`, 1)), 0o644)
	for _, args := range [][]string{
		{"bench", "--hidden", "16", "--batch", "3", "--src-len", "5", "--vocab", "9", "--steps", "3", "--warmup", "1", "--reps", "1", "--beam-reps", "1"},
		{"run", exp, "--out", filepath.Join(dir, "results"), "--workers", "1"},
	} {
		cpu, mem := filepath.Join(dir, args[0]+".cpu"), filepath.Join(dir, args[0]+".mem")
		_, errs, code := runCLI(t, append(args, "--cpuprofile", cpu, "--memprofile", mem)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		for _, f := range []string{cpu, mem} {
			b, err := os.ReadFile(f)
			if err != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
				t.Errorf("%s: %d bytes, %v; want a gzip'd profile", f, len(b), err)
			}
		}
		for _, flag := range []string{"--cpuprofile", "--memprofile"} {
			_, errs, code := runCLI(t, append(args, flag, filepath.Join(dir, "no", "such", "dir"))...)
			if code != 1 || !strings.Contains(errs, flag) {
				t.Errorf("%v %s into a missing folder: exit %d, stderr %q", args, flag, code, errs)
			}
		}
	}
}

// TestTorchSameFunction: bench/pytorch/reverse.py's model is attnzoo's
// function, not just its parameter count. With every parameter of a small
// float64 model set at random (biases too) and copied into the PyTorch
// model (--only check), the mean token cross-entropy of one batch and every
// entry of every gradient agree to 1e-9.
func TestTorchSameFunction(t *testing.T) {
	py := torchPython(t)
	s := benchSizes{hidden: 6, batch: 3, srcLen: 4, vocab: 9}
	cfg := s.config()
	cfg.Dtype = "float64"
	m, err := seq2seq.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	params := map[string][]float64{}
	for _, p := range m.Params() {
		p.Uniform(rng, 0.5)
		params[p.Name] = p.Float64s()
	}
	b := s.draw(rng)
	cache := seq2seq.NewGraphCache(0)
	defer cache.Close()
	loss, grads, err := m.Loss(b, rng, cache)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(map[string]any{"params": params, "src": b.Src, "tgt_in": b.TgtIn, "tgt_out": b.TgtOut})
	file := filepath.Join(t.TempDir(), "check.json")
	os.WriteFile(file, data, 0o644)
	cmd := exec.Command(py, filepath.Join("..", "..", "bench", "pytorch", "reverse.py"), "--only", "check", "--check", file,
		"--hidden", "6", "--batch", "3", "--src-len", "4", "--vocab", "9")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	var theirs struct {
		Loss  float64              `json:"loss"`
		Grads map[string][]float64 `json:"grads"`
	}
	if err := json.Unmarshal(out, &theirs); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*(1+math.Abs(b)) }
	if !close(loss, theirs.Loss) {
		t.Errorf("loss: attnzoo %.12g, pytorch %.12g", loss, theirs.Loss)
	}
	if len(theirs.Grads) != len(m.Params()) {
		t.Errorf("pytorch gives %d gradients, attnzoo has %d parameters", len(theirs.Grads), len(m.Params()))
	}
	for i, p := range m.Params() {
		g := theirs.Grads[p.Name]
		if len(g) != len(grads[i]) {
			t.Errorf("%s: pytorch gradient has %d entries, want %d", p.Name, len(g), len(grads[i]))
			continue
		}
		for j := range g {
			if !close(grads[i][j], g[j]) {
				t.Errorf("%s[%d]: attnzoo %.12g, pytorch %.12g", p.Name, j, grads[i][j], g[j])
				break
			}
		}
	}
}

// TestTableFromDevice: lines that ran on a GPU (bench/pytorch/reverse.py
// --device cuda, attnzoo bench --device gpu) say where in the table's
// footer; cpu lines add nothing (TestTableFrom's footers end at the
// thread counts).
func TestTableFromDevice(t *testing.T) {
	file := filepath.Join(t.TempDir(), "gpu.jsonl")
	lines := `{"system": "pytorch-2.11.0", "device": "NVIDIA H200", "threads": 1, "hidden": 128, "batch": 64, "src_len": 12, "vocab": 32, "params": 288288, "steps_timed": 50, "ms_step_median": 4.0, "ms_step_min": 3.0, "decode_seq_s": 5000.0}
{"system": "attnzoo", "device": "opencl:0:0 (NVIDIA H200)", "threads": 2, "blas": "gonum", "blas_threads": 1, "hidden": 128, "batch": 64, "src_len": 12, "vocab": 32, "params": 288288, "steps_timed": 50, "ms_step_median": 8.0, "ms_step_min": 6.0, "decode_seq_s": 2500.0}
`
	os.WriteFile(file, []byte(lines), 0o644)
	out, errs, code := runCLI(t, "bench", "--table-from", file)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"| 128 | 64 | 12 | 32 | 288,288 | 50 | 4.0 | 8.0 | 2.00 | 3.0 | 6.0 | 2.00 | 5000 | 2500 | 0.50 |", // 8 ÷ 4, 6 ÷ 3, 2500 ÷ 5000
		"OpenBLAS kernel —; on NVIDIA H200.",
		"GOMAXPROCS 2; on opencl:0:0 (NVIDIA H200).",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}
