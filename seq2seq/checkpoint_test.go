package seq2seq

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// savedWithAdam trains a small float32 model 3 steps with Adam and saves it
// with the optimizer's state; it returns the model, that state and the
// checkpoint's path.
func savedWithAdam(t *testing.T) (*Model, OptimizerState, string) {
	t.Helper()
	m, err := New(smallConfig("general", "bahdanau"))
	if err != nil {
		t.Fatal(err)
	}
	opt, _ := NewOptimizer(Optimizer{Name: "adam", LR: 3e-3, Clip: 5})
	tr := NewTrainer(m, opt, 1)
	trainSteps(t, tr, rand.New(rand.NewPCG(3, 3)), 3, 8, 3, 6)
	st, err := opt.State()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "checkpoint.json")
	if err := m.Save(path, Checkpoint{SrcVocab: []string{"x"}, TgtVocab: []string{"y"}, Step: 3, Optimizer: &st}); err != nil {
		t.Fatal(err)
	}
	return m, st, path
}

// TestSafetensorsByHand decodes the tensors file as the safetensors format
// defines it, without the library that wrote it: 8 bytes of little-endian
// header length N, N bytes of JSON mapping each name to its dtype, shape
// and [begin, end) byte offsets after the header, then the data. Every
// parameter is there as F32 (the model's dtype, 4 bytes an entry) with
// its exact values, the Adam moments as F64, and the file is exactly the
// header plus 4 bytes per parameter entry plus 16 per moment pair.
func TestSafetensorsByHand(t *testing.T) {
	m, st, path := savedWithAdam(t)
	if _, err := os.Stat(filepath.Join(filepath.Dir(path), "checkpoint-3.safetensors")); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(filepath.Dir(path), "checkpoint-3.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	n := binary.LittleEndian.Uint64(raw[:8])
	var header map[string]json.RawMessage
	if err := json.Unmarshal(raw[8:8+n], &header); err != nil {
		t.Fatal(err)
	}
	data := raw[8+n:]
	type info struct {
		Dtype   string `json:"dtype"`
		Shape   []int  `json:"shape"`
		Offsets [2]int `json:"data_offsets"`
	}
	get := func(name string) info {
		var in info
		if err := json.Unmarshal(header[name], &in); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return in
	}
	var meta map[string]string
	json.Unmarshal(header["__metadata__"], &meta)
	if meta["step"] != "3" {
		t.Errorf("__metadata__ %v", meta)
	}
	want := 0
	for i, p := range m.Params() {
		in := get(p.Name)
		if in.Dtype != "F32" || !slices.Equal(in.Shape, p.Shape()) || in.Offsets[1]-in.Offsets[0] != 4*p.Size() {
			t.Fatalf("%s: %+v, want F32 %v", p.Name, in, p.Shape())
		}
		for j, x := range p.Data32() {
			if got := math.Float32frombits(binary.LittleEndian.Uint32(data[in.Offsets[0]+4*j:])); got != x {
				t.Fatalf("%s[%d] = %v in the file, %v in the model", p.Name, j, got, x)
			}
		}
		for _, k := range []struct {
			name string
			vals []float64
		}{{"optimizer.m." + p.Name, st.M[i]}, {"optimizer.v." + p.Name, st.V[i]}} {
			in := get(k.name)
			if in.Dtype != "F64" || !slices.Equal(in.Shape, p.Shape()) {
				t.Fatalf("%s: %+v", k.name, in)
			}
			for j, x := range k.vals {
				if got := math.Float64frombits(binary.LittleEndian.Uint64(data[in.Offsets[0]+8*j:])); got != x {
					t.Fatalf("%s[%d] = %v in the file, %v in the optimizer", k.name, j, got, x)
				}
			}
		}
		want += 4*p.Size() + 16*p.Size()
	}
	if len(header) != 3*len(m.Params())+1 || len(data) != want {
		t.Errorf("%d header entries and %d data bytes, want %d and %d", len(header), len(data), 3*len(m.Params())+1, want)
	}
	// the JSON beside it is small: no numbers but the configuration's
	js, _ := os.ReadFile(path)
	if strings.Contains(string(js), `"params"`) || strings.Contains(string(js), `"m"`) || len(js) > 2000 {
		t.Errorf("checkpoint.json holds tensors (%d bytes):\n%s", len(js), js)
	}
}

// readNumpy is how a numpy user reads a parameter without the safetensors
// package: the header's length, the header, the bytes at its offsets.
const readNumpy = `
import json, struct, sys, numpy as np
f = open(sys.argv[1], "rb"); n = struct.unpack("<Q", f.read(8))[0]; h = json.loads(f.read(n)); data = f.read()
t = h[sys.argv[2]]; b, e = t["data_offsets"]
a = np.frombuffer(data[b:e], dtype={"F32": "<f4", "F64": "<f8"}[t["dtype"]]).reshape(t["shape"])
print(json.dumps({"shape": list(a.shape), "values": a.astype(float).ravel().tolist()}))
`

// TestSafetensorsNumpy: numpy reads a parameter and a moment with the
// values the model and the optimizer hold (skipped without python3 and
// numpy).
func TestSafetensorsNumpy(t *testing.T) {
	py := numpyPython()
	if py == "" {
		t.Skip("no python3 with numpy (tried $NUMPY_PYTHON, python3 on PATH, /usr/bin/python3)")
	}
	m, st, path := savedWithAdam(t)
	file := filepath.Join(filepath.Dir(path), "checkpoint-3.safetensors")
	p := m.Params()[1]
	for _, c := range []struct {
		name string
		want []float64
	}{{p.Name, p.Float64s()}, {"optimizer.v." + p.Name, st.V[1]}} {
		out, err := exec.Command(py, "-c", readNumpy, file, c.name).Output()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var got struct {
			Shape  []int
			Values []float64
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%s: %v: %s", c.name, err, out)
		}
		if !slices.Equal(got.Shape, p.Shape()) || !slices.Equal(got.Values, c.want) {
			t.Errorf("%s: numpy reads shape %v values %v…, want %v %v…", c.name, got.Shape, got.Values[:3], p.Shape(), c.want[:3])
		}
	}
}

// numpyPython is the first python3 that imports numpy: $NUMPY_PYTHON,
// python3 on PATH (a pyenv one may lack numpy), or the system's.
func numpyPython() string {
	for _, py := range []string{os.Getenv("NUMPY_PYTHON"), "python3", "/usr/bin/python3"} {
		if py == "" {
			continue
		}
		if path, err := exec.LookPath(py); err == nil && exec.Command(path, "-c", "import numpy").Run() == nil {
			return path
		}
	}
	return ""
}

// TestCheckpointOptimizerRoundTrip: Load gives back the parameters and the
// optimizer's step count and moments exactly.
func TestCheckpointOptimizerRoundTrip(t *testing.T) {
	m, st, path := savedWithAdam(t)
	m2, ck, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if ck.Step != 3 || ck.Optimizer == nil || ck.Optimizer.T != st.T || !slices.Equal(ck.SrcVocab, []string{"x"}) {
		t.Fatalf("checkpoint %+v", ck)
	}
	for i, p := range m.Params() {
		if !slices.Equal(p.Data32(), m2.Params()[i].Data32()) {
			t.Errorf("parameter %s differs", p.Name)
		}
		if !slices.Equal(st.M[i], ck.Optimizer.M[i]) || !slices.Equal(st.V[i], ck.Optimizer.V[i]) {
			t.Errorf("moments of %s differ", p.Name)
		}
	}
}

// TestInlineCheckpointLoads: a checkpoint of the earlier format, one JSON
// file with the parameters inline as float64, still loads.
func TestInlineCheckpointLoads(t *testing.T) {
	m, _, _ := savedWithAdam(t)
	old := Checkpoint{Config: m.Cfg, TgtVocab: []string{"a"}, Step: 7}
	for _, p := range m.Params() {
		old.Params = append(old.Params, CheckpointParam{Name: p.Name, Shape: p.Shape(), Data: p.Float64s()})
	}
	data, _ := json.MarshalIndent(old, "", "  ")
	path := filepath.Join(t.TempDir(), "checkpoint")
	os.WriteFile(path, data, 0o644)
	m2, ck, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if ck.Step != 7 || ck.Optimizer != nil {
		t.Errorf("checkpoint %+v", ck)
	}
	for i, p := range m.Params() {
		if !slices.Equal(p.Data32(), m2.Params()[i].Data32()) {
			t.Errorf("parameter %s differs", p.Name)
		}
	}
}

// TestCheckpointErrors: a missing or cut tensors file, or a parameter of
// the wrong shape, is an error naming the file and the parameter.
func TestCheckpointErrors(t *testing.T) {
	_, _, path := savedWithAdam(t)
	dir := filepath.Dir(path)
	tensors := filepath.Join(dir, "checkpoint-3.safetensors")
	good, _ := os.ReadFile(tensors)

	os.WriteFile(tensors, good[:len(good)-4], 0o644)
	if _, _, err := Load(path); err == nil || !strings.Contains(err.Error(), "checkpoint-3.safetensors") {
		t.Errorf("cut file: %v", err)
	}
	os.Remove(tensors)
	if _, _, err := Load(path); err == nil || !strings.Contains(err.Error(), "checkpoint-3.safetensors") {
		t.Errorf("missing file: %v", err)
	}
	// a checkpoint of a larger model read as a smaller one (checkpoint.json
	// without its checksums, as written before them, so that the shapes are
	// what is wrong)
	m, _ := New(func() Config { c := smallConfig("general", "bahdanau"); c.Hidden = 16; return c }())
	small := filepath.Join(dir, "small.json")
	if err := m.Save(small, Checkpoint{Step: 3}); err != nil {
		t.Fatal(err)
	}
	os.Rename(filepath.Join(dir, "small-3.safetensors"), tensors)
	unsum(t, path)
	if _, _, err := Load(path); err == nil || !strings.Contains(err.Error(), "checkpoint-3.safetensors") || !strings.Contains(err.Error(), "has shape") {
		t.Errorf("wrong shapes: %v", err)
	}
}

// unsum rewrites the checkpoint at path without its checksums, as a
// checkpoint written before them.
func unsum(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ck map[string]any
	if err := json.Unmarshal(data, &ck); err != nil {
		t.Fatal(err)
	}
	delete(ck, "sha256")
	delete(ck, "tensors_sha256")
	data, _ = json.MarshalIndent(ck, "", "  ")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCheckpointChecksums: the JSON file records the SHA-256 of its
// tensors file and its own (its text with the digest's 64 digits zeroed),
// each recomputed here from the bytes on disk; Load verifies both. A bit
// flipped in the tensors file, or the step edited in the JSON file, is an
// error naming the file and both digests; a missing tensors file is an
// error naming it that is not os.ErrNotExist (no checkpoint); a step
// edited in a checkpoint without checksums disagrees with the step its
// tensors file's header records.
func TestCheckpointChecksums(t *testing.T) {
	_, _, path := savedWithAdam(t)
	tensors := filepath.Join(filepath.Dir(path), "checkpoint-3.safetensors")
	js, _ := os.ReadFile(path)
	good, _ := os.ReadFile(tensors)
	var ck struct {
		Tensors string `json:"tensors_sha256"`
		Self    string `json:"sha256"`
	}
	if err := json.Unmarshal(js, &ck); err != nil {
		t.Fatal(err)
	}
	hexSum := func(b []byte) string { h := sha256.Sum256(b); return hex.EncodeToString(h[:]) }
	if want := hexSum(good); ck.Tensors != want {
		t.Errorf("tensors_sha256 %q, the file's SHA-256 is %s", ck.Tensors, want)
	}
	zeroed := strings.Replace(string(js), ck.Self, strings.Repeat("0", 64), 1)
	if want := hexSum([]byte(zeroed)); ck.Self != want {
		t.Errorf("sha256 %q, the zeroed text's SHA-256 is %s", ck.Self, want)
	}
	if _, c, err := Load(path); err != nil || !c.Verified() {
		t.Fatalf("load: %v", err)
	}

	flipped := slices.Clone(good)
	flipped[len(flipped)-5] ^= 0x10 // a bit of the last moment's data
	os.WriteFile(tensors, flipped, 0o644)
	if _, _, err := Load(path); err == nil || !strings.Contains(err.Error(), "checkpoint-3.safetensors") ||
		!strings.Contains(err.Error(), ck.Tensors) || !strings.Contains(err.Error(), hexSum(flipped)) {
		t.Errorf("flipped bit: %v", err)
	}
	os.WriteFile(tensors, good, 0o644)

	edited := strings.Replace(string(js), `"step": 3`, `"step": 30`, 1)
	os.WriteFile(path, []byte(edited), 0o644)
	if _, _, err := Load(path); err == nil || !strings.Contains(err.Error(), "checkpoint.json") ||
		!strings.Contains(err.Error(), ck.Self) || !strings.Contains(err.Error(), "checksum mismatch") {
		t.Errorf("edited step: %v", err)
	}
	unsum(t, path) // without checksums, the tensors file's header still says step 3
	if _, _, err := Load(path); err == nil || !strings.Contains(err.Error(), "step 30") || !strings.Contains(err.Error(), "written at step 3") {
		t.Errorf("edited step, no checksums: %v", err)
	}
	os.WriteFile(path, js, 0o644)

	os.Remove(tensors)
	_, _, err := Load(path)
	if err == nil || !strings.Contains(err.Error(), "checkpoint-3.safetensors is missing") || errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing tensors file: %v (is ErrNotExist: %v)", err, errors.Is(err, os.ErrNotExist))
	}
}

// TestCheckpointNaN: a model holding NaN is not saved (the checkpoint
// there is kept), and a checkpoint holding NaN (here one without
// checksums whose first float32 entry is overwritten with a NaN's bits)
// is refused naming the parameter.
func TestCheckpointNaN(t *testing.T) {
	m, st, path := savedWithAdam(t)
	before, _ := os.ReadFile(path)
	p := m.Params()[0]
	p.Data32()[0] = float32(math.NaN())
	err := m.Save(path, Checkpoint{Step: 4, Optimizer: &st})
	if err == nil || !strings.Contains(err.Error(), p.Name+" holds NaN") || !strings.Contains(err.Error(), "not saved") {
		t.Errorf("save NaN: %v", err)
	}
	if after, _ := os.ReadFile(path); !slices.Equal(before, after) {
		t.Error("the checkpoint was replaced")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(path), "checkpoint-4.safetensors")); !os.IsNotExist(err) {
		t.Errorf("a tensors file of step 4 was written (%v)", err)
	}

	tensors := filepath.Join(filepath.Dir(path), "checkpoint-3.safetensors")
	data, _ := os.ReadFile(tensors)
	n := binary.LittleEndian.Uint64(data)
	var header map[string]struct {
		DataOffsets []int `json:"data_offsets"`
	}
	if err := json.Unmarshal(data[8:8+n], &header); err != nil {
		t.Fatal(err)
	}
	at := 8 + int(n) + header[p.Name].DataOffsets[0]
	binary.LittleEndian.PutUint32(data[at:], math.Float32bits(float32(math.NaN())))
	os.WriteFile(tensors, data, 0o644)
	unsum(t, path)
	if _, _, err := Load(path); err == nil || !strings.Contains(err.Error(), p.Name+" holds NaN (entry 0)") {
		t.Errorf("load NaN: %v", err)
	}
}

// TestUnsummedCheckpointLoads: a checkpoint written before the checksums
// loads, unverified.
func TestUnsummedCheckpointLoads(t *testing.T) {
	m, _, path := savedWithAdam(t)
	unsum(t, path)
	m2, ck, err := Load(path)
	if err != nil || ck.Verified() {
		t.Fatalf("load: %v, verified %v", err, err == nil && ck.Verified())
	}
	if !slices.Equal(m.Params()[0].Data32(), m2.Params()[0].Data32()) {
		t.Error("parameters differ")
	}
}
