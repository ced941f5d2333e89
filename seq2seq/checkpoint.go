package seq2seq

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/attnzoo/attnzoo/internal/atomicfile"
)

// Checkpoint is a model's configuration, parameters and vocabularies, as
// saved to disk (JSON). float32 parameters round-trip exactly through
// float64, so a loaded model decodes exactly as the saved one.
type Checkpoint struct {
	Config   Config            `json:"config"`
	Params   []CheckpointParam `json:"params"`
	SrcVocab []string          `json:"src_vocab,omitempty"`
	TgtVocab []string          `json:"tgt_vocab,omitempty"`
	Step     int               `json:"step"`
}

// CheckpointParam is one parameter tensor.
type CheckpointParam struct {
	Name  string    `json:"name"`
	Shape []int     `json:"shape"`
	Data  []float64 `json:"data"`
}

// Save writes the model and vocabularies to path atomically: a temporary
// file in the same folder, synced, then renamed over path.
func (m *Model) Save(path string, srcVocab, tgtVocab []string, step int) error {
	data, err := json.Marshal(m.Checkpoint(srcVocab, tgtVocab, step))
	if err != nil {
		return fmt.Errorf("seq2seq: save %s: %w", path, err)
	}
	return WriteFileAtomic(path, data)
}

// Checkpoint returns the model's checkpoint (a copy of its parameters).
func (m *Model) Checkpoint(srcVocab, tgtVocab []string, step int) *Checkpoint {
	ck := &Checkpoint{Config: m.Cfg, SrcVocab: srcVocab, TgtVocab: tgtVocab, Step: step}
	for _, p := range m.params {
		ck.Params = append(ck.Params, CheckpointParam{Name: p.Name, Shape: p.Shape(), Data: p.Float64s()})
	}
	return ck
}

// WriteFileAtomic writes data to a temporary file beside path, syncs it and
// renames it over path, so a crash never leaves a half-written file; the
// file has the usual mode (0666 less the umask).
func WriteFileAtomic(path string, data []byte) error { return atomicfile.Write(path, data) }

// Load reads a checkpoint and rebuilds its model. Every parameter of the
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
	m, err := FromCheckpoint(&ck)
	if err != nil {
		return nil, nil, fmt.Errorf("seq2seq: %s: %w", path, err)
	}
	return m, &ck, nil
}

// FromCheckpoint rebuilds a model from a checkpoint; every parameter of the
// configuration must be present with its shape.
func FromCheckpoint(ck *Checkpoint) (*Model, error) {
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
