package seq2seq

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/attnzoo/attnzoo/internal/atomicfile"
)

// Checkpoint is a saved model: a small JSON file (this struct) beside a
// safetensors file, named in Tensors, that holds the parameters under
// their names in the model's dtype and, when Optimizer is given, the
// optimizer's moment estimates as float64 "optimizer.m.NAME" and
// "optimizer.v.NAME". PyTorch, numpy and any safetensors reader load the
// parameters directly.
//
// Both files carry a SHA-256 that Load verifies: TensorsSHA256 is the
// safetensors file's, SHA256 the JSON file's own (so an edited step or
// clock is found too). Checkpoints written before the checksums still
// load, unverified (Verified says which), and so do those written before
// the safetensors file (one JSON file with the parameters inline in
// Params, as float64).
type Checkpoint struct {
	Config   Config   `json:"config"`
	SrcVocab []string `json:"src_vocab,omitempty"`
	TgtVocab []string `json:"tgt_vocab,omitempty"`
	Step     int      `json:"step"`
	Tensors  string   `json:"tensors,omitempty"` // the safetensors file, in the JSON file's folder
	// TensorsSHA256 is the SHA-256 of the file Tensors names, in hex.
	TensorsSHA256 string          `json:"tensors_sha256,omitempty"`
	Optimizer     *OptimizerState `json:"optimizer,omitempty"` // the step count here, the moments in Tensors
	Run           json.RawMessage `json:"run,omitempty"`       // the caller's own state, kept as given

	Params []CheckpointParam `json:"params,omitempty"` // older checkpoints only: the parameters inline

	// SHA256 is the SHA-256, in hex, of the JSON file as written with this
	// field's 64 digits all "0". It is the file's last key.
	SHA256 string `json:"sha256,omitempty"`
}

// Verified reports whether the checkpoint carried checksums, which Load
// verified; one written before them loads unverified.
func (ck *Checkpoint) Verified() bool { return ck.SHA256 != "" }

// unsummed is the SHA256 field's placeholder while the file's own
// checksum is taken.
var unsummed = strings.Repeat("0", sha256.Size*2)

// sumKey is the text of the JSON file's SHA256 entry holding digest.
func sumKey(digest string) []byte { return []byte(`"sha256": "` + digest + `"`) }

// jsonSum is the SHA-256 of a checkpoint's JSON text data with its SHA256
// entry, holding digest, set to the placeholder; ok is false when data has
// no such entry.
func jsonSum(data []byte, digest string) (sum string, ok bool) {
	i := bytes.LastIndex(data, sumKey(digest))
	if i < 0 {
		return "", false
	}
	h := sha256.New()
	h.Write(data[:i])
	h.Write(sumKey(unsummed))
	h.Write(data[i+len(sumKey(digest)):])
	return hex.EncodeToString(h.Sum(nil)), true
}

// CheckpointParam is one parameter tensor inline in an older checkpoint.
type CheckpointParam struct {
	Name  string    `json:"name"`
	Shape []int     `json:"shape"`
	Data  []float64 `json:"data"`
}

// TensorsName is the safetensors file a checkpoint at path writes for
// step: "checkpoint.json" at step 600 → "checkpoint-600.safetensors". Each
// step writes a new file, so the JSON always names a complete one.
func TensorsName(path string, step int) string {
	return tensorsPrefix(path) + strconv.Itoa(step) + ".safetensors"
}

func tensorsPrefix(path string) string { return strings.TrimSuffix(filepath.Base(path), ".json") + "-" }

// Save writes ck with the model's configuration to path, and the model's
// parameters (with ck.Optimizer's moments) to the safetensors file
// TensorsName(path, ck.Step) beside it. The tensors are written and
// renamed into place first, then the JSON that names them, then older
// tensors files of path are removed: a crash at any point leaves the
// previous checkpoint or the new one whole, never half of one. A model
// whose parameters hold NaN or ±Inf is not saved: the error says so, and
// the checkpoint at path, if any, is left as it was.
func (m *Model) Save(path string, ck Checkpoint) error {
	if err := m.Sync(); err != nil { // parameters on a device come back first
		return fmt.Errorf("seq2seq: save %s: %w", path, err)
	}
	for _, p := range m.params {
		if err := finite(p.Name, p.Data32(), p.Data64()); err != nil {
			return fmt.Errorf("seq2seq: save %s at step %d: %w: not saved", path, ck.Step, err)
		}
	}
	ck.Config, ck.Params = m.Cfg, nil
	ck.Tensors = TensorsName(path, ck.Step)
	ts := m.tensors()
	if o := ck.Optimizer; o != nil {
		ck.Optimizer = &OptimizerState{T: o.T, Schedule: o.Schedule}
		if o.M != nil {
			if len(o.M) != len(m.params) || len(o.V) != len(m.params) {
				return fmt.Errorf("seq2seq: save %s: optimizer state for %d parameters, model has %d", path, len(o.M), len(m.params))
			}
			for i, p := range m.params {
				ts = append(ts, Tensor{Name: "optimizer.m." + p.Name, Shape: p.Shape(), F64: o.M[i]},
					Tensor{Name: "optimizer.v." + p.Name, Shape: p.Shape(), F64: o.V[i]})
			}
		}
	}
	dir := filepath.Dir(path)
	meta := map[string]string{"format": "attnzoo", "step": strconv.Itoa(ck.Step)}
	var err error
	if ck.TensorsSHA256, err = writeTensors(filepath.Join(dir, ck.Tensors), ts, meta); err != nil {
		return fmt.Errorf("seq2seq: save: %w", err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // "<s>" as written, not "\u003cs\u003e"
	enc.SetIndent("", "  ")
	ck.SHA256 = unsummed
	if err := enc.Encode(ck); err != nil {
		return fmt.Errorf("seq2seq: save %s: %w", path, err)
	}
	data := buf.Bytes()
	sum, _ := jsonSum(data, unsummed)
	i := bytes.LastIndex(data, sumKey(unsummed))
	copy(data[i:], sumKey(sum))
	if err := atomicfile.Write(path, data); err != nil {
		return fmt.Errorf("seq2seq: save: %w", err)
	}
	old, _ := filepath.Glob(filepath.Join(dir, tensorsPrefix(path)+"*.safetensors"))
	for _, f := range old {
		if filepath.Base(f) != ck.Tensors {
			os.Remove(f)
		}
	}
	return nil
}

// tensors are the model's parameters, sharing their data.
func (m *Model) tensors() []Tensor {
	ts := make([]Tensor, len(m.params))
	for i, p := range m.params {
		ts[i] = Tensor{Name: p.Name, Shape: p.Shape(), F32: p.Data32(), F64: p.Data64()}
	}
	return ts
}

// WriteFileAtomic writes data to a temporary file beside path, syncs it and
// renames it over path, so a crash never leaves a half-written file; the
// file has the usual mode (0666 less the umask).
func WriteFileAtomic(path string, data []byte) error { return atomicfile.Write(path, data) }

// Load reads a checkpoint and rebuilds its model; ck.Optimizer, when the
// checkpoint has one, comes back with its moments. Every parameter of the
// configuration must be present with its shape; an error names the file and
// the parameter. The checksums are verified first (a mismatch names the
// file and both digests), then the step the tensors file records, and
// every parameter and moment must be finite. A missing tensors file is an
// error naming it that does not wrap os.ErrNotExist: the checkpoint
// exists, and is broken.
func Load(path string) (*Model, *Checkpoint, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("seq2seq: %w", err)
	}
	var ck Checkpoint
	if err := json.Unmarshal(data, &ck); err != nil {
		return nil, nil, fmt.Errorf("seq2seq: %s: %w", path, err)
	}
	if ck.SHA256 != "" {
		if sum, ok := jsonSum(data, ck.SHA256); !ok || sum != ck.SHA256 {
			return nil, nil, fmt.Errorf("seq2seq: %s: checksum mismatch: the file records SHA-256 %s, its content has %s: it was changed after it was written", path, ck.SHA256, sum)
		}
	}
	if ck.Tensors == "" { // an older checkpoint: parameters inline
		m, err := FromCheckpoint(&ck)
		if err != nil {
			return nil, nil, fmt.Errorf("seq2seq: %s: %w", path, err)
		}
		return m, &ck, nil
	}
	if filepath.Base(ck.Tensors) != ck.Tensors {
		return nil, nil, fmt.Errorf("seq2seq: %s: tensors %q is not a file name in the checkpoint's folder", path, ck.Tensors)
	}
	tpath := filepath.Join(filepath.Dir(path), ck.Tensors)
	ts, err := ck.readTensors(path, tpath)
	if err != nil {
		return nil, nil, err
	}
	held := 0
	for _, t := range ts {
		held += len(t.F32) + len(t.F64)
	}
	if err := checkHeld(ck.Config, held); err != nil {
		return nil, nil, fmt.Errorf("seq2seq: %s: %w", path, err)
	}
	m, err := New(ck.Config)
	if err != nil {
		return nil, nil, fmt.Errorf("seq2seq: %s: %w", path, err)
	}
	for _, p := range m.params {
		t, ok := ts[p.Name]
		if !ok {
			return nil, nil, fmt.Errorf("seq2seq: %s: parameter %s missing", tpath, p.Name)
		}
		if !slices.Equal(t.Shape, p.Shape()) {
			return nil, nil, fmt.Errorf("seq2seq: %s: parameter %s has shape %v, model wants %v", tpath, p.Name, t.Shape, p.Shape())
		}
		if err := p.Set(t.Float64s()); err != nil {
			return nil, nil, fmt.Errorf("seq2seq: %s: %w", tpath, err)
		}
	}
	if ck.Optimizer != nil {
		if err := ck.Optimizer.readMoments(ts, m); err != nil {
			return nil, nil, fmt.Errorf("seq2seq: %s: %w", tpath, err)
		}
	}
	return m, &ck, nil
}

// readTensors reads the tensors file tpath of the checkpoint at path:
// whole, with the SHA-256 and the step the checkpoint records, and finite.
func (ck *Checkpoint) readTensors(path, tpath string) (map[string]Tensor, error) {
	data, err := os.ReadFile(tpath)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("seq2seq: %s: its tensors file %s is missing", path, tpath)
	}
	if err != nil {
		return nil, fmt.Errorf("seq2seq: %s: %v", path, err)
	}
	if ck.TensorsSHA256 != "" {
		h := sha256.Sum256(data)
		if sum := hex.EncodeToString(h[:]); sum != ck.TensorsSHA256 {
			return nil, fmt.Errorf("seq2seq: %s: checksum mismatch: %s records SHA-256 %s, the file has %s: it was changed after it was written", tpath, filepath.Base(path), ck.TensorsSHA256, sum)
		}
	}
	ts, meta, err := parseTensors(tpath, data)
	if err != nil {
		return nil, fmt.Errorf("seq2seq: %s: %w", path, err)
	}
	if s, ok := meta["step"]; ok && s != strconv.Itoa(ck.Step) {
		return nil, fmt.Errorf("seq2seq: %s: step %d, but its tensors file %s was written at step %s", path, ck.Step, tpath, s)
	}
	names := slices.Sorted(maps.Keys(ts))
	for _, name := range names {
		if err := finite(name, ts[name].F32, ts[name].F64); err != nil {
			return nil, fmt.Errorf("seq2seq: %s: %w: the model had diverged when this checkpoint was written", tpath, err)
		}
	}
	return ts, nil
}

// finite refuses a tensor name whose entries (f32 or f64) hold NaN or ±Inf,
// naming the first.
func finite(name string, f32 []float32, f64 []float64) error {
	for i, v := range f32 {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("%s holds %v (entry %d)", name, v, i)
		}
	}
	for i, v := range f64 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%s holds %v (entry %d)", name, v, i)
		}
	}
	return nil
}

// readMoments fills M and V from "optimizer.m.NAME" and "optimizer.v.NAME"
// for every parameter, or leaves them nil when the file has none.
func (o *OptimizerState) readMoments(ts map[string]Tensor, m *Model) error {
	if _, ok := ts["optimizer.m."+m.params[0].Name]; !ok {
		return nil
	}
	for _, p := range m.params {
		for _, kind := range []string{"m", "v"} {
			name := "optimizer." + kind + "." + p.Name
			t, ok := ts[name]
			if !ok {
				return fmt.Errorf("%s missing", name)
			}
			if !slices.Equal(t.Shape, p.Shape()) {
				return fmt.Errorf("%s has shape %v, parameter %s has %v", name, t.Shape, p.Name, p.Shape())
			}
			if kind == "m" {
				o.M = append(o.M, t.Float64s())
			} else {
				o.V = append(o.V, t.Float64s())
			}
		}
	}
	return nil
}

// FromCheckpoint rebuilds a model from an older checkpoint, with its
// parameters inline; every parameter of the configuration must be present
// with its shape.
func FromCheckpoint(ck *Checkpoint) (*Model, error) {
	held := 0
	for _, p := range ck.Params {
		held += len(p.Data)
	}
	if err := checkHeld(ck.Config, held); err != nil {
		return nil, err
	}
	m, err := New(ck.Config)
	if err != nil {
		return nil, err
	}
	got := map[string]CheckpointParam{}
	for _, p := range ck.Params {
		got[p.Name] = p
	}
	for _, p := range m.params {
		cp, ok := got[p.Name]
		if !ok {
			return nil, fmt.Errorf("parameter %s missing", p.Name)
		}
		if fmt.Sprint(cp.Shape) != fmt.Sprint(p.Shape()) || len(cp.Data) != p.Size() {
			return nil, fmt.Errorf("parameter %s has shape %v (%d values), model wants %v", p.Name, cp.Shape, len(cp.Data), p.Shape())
		}
		if err := p.Set(cp.Data); err != nil {
			return nil, err
		}
	}
	return m, nil
}
