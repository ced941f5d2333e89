package seq2seq

import (
	"bytes"
	"encoding/json"
	"fmt"
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
// Checkpoints written before the safetensors file (one JSON file with the
// parameters inline in Params, as float64) still load.
type Checkpoint struct {
	Config    Config          `json:"config"`
	SrcVocab  []string        `json:"src_vocab,omitempty"`
	TgtVocab  []string        `json:"tgt_vocab,omitempty"`
	Step      int             `json:"step"`
	Tensors   string          `json:"tensors,omitempty"`   // the safetensors file, in the JSON file's folder
	Optimizer *OptimizerState `json:"optimizer,omitempty"` // the step count here, the moments in Tensors
	Run       json.RawMessage `json:"run,omitempty"`       // the caller's own state, kept as given

	Params []CheckpointParam `json:"params,omitempty"` // older checkpoints only: the parameters inline
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
// previous checkpoint or the new one whole, never half of one.
func (m *Model) Save(path string, ck Checkpoint) error {
	if err := m.Sync(); err != nil { // parameters on a device come back first
		return fmt.Errorf("seq2seq: save %s: %w", path, err)
	}
	ck.Config, ck.Params = m.Cfg, nil
	ck.Tensors = TensorsName(path, ck.Step)
	ts := m.tensors()
	if o := ck.Optimizer; o != nil {
		ck.Optimizer = &OptimizerState{T: o.T}
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
	if err := WriteTensors(filepath.Join(dir, ck.Tensors), ts, meta); err != nil {
		return fmt.Errorf("seq2seq: save: %w", err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // "<s>" as written, not "\u003cs\u003e"
	enc.SetIndent("", "  ")
	if err := enc.Encode(ck); err != nil {
		return fmt.Errorf("seq2seq: save %s: %w", path, err)
	}
	if err := atomicfile.Write(path, buf.Bytes()); err != nil {
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
// the parameter.
func Load(path string) (*Model, *Checkpoint, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("seq2seq: %w", err)
	}
	var ck Checkpoint
	if err := json.Unmarshal(data, &ck); err != nil {
		return nil, nil, fmt.Errorf("seq2seq: %s: %w", path, err)
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
	ts, _, err := ReadTensors(tpath)
	if err != nil {
		return nil, nil, fmt.Errorf("seq2seq: %s: %w", path, err)
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
