package seq2seq

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoadCheckpoint feeds arbitrary bytes to checkpoint loading, as the
// JSON file and the safetensors file it names: an error naming the file or
// a model, never a panic, and never a model larger than the files hold
// (checkHeld: a hostile hidden = 10⁹ is refused before anything is
// allocated).
func FuzzLoadCheckpoint(f *testing.F) {
	dir := f.TempDir()
	for i, cfg := range []Config{
		{Cell: "gru", Encoder: "birnn", Decoder: "bahdanau", Scorer: "concat", SrcVocab: 7, TgtVocab: 6, Embed: 3, Hidden: 4, Attention: 3, MaxSrcLen: 5, Seed: 1},
		{Cell: "lstm", Encoder: "rnn", Decoder: "luong", Scorer: "location", Init: "zero", SrcVocab: 6, TgtVocab: 5, Embed: 2, Hidden: 3, MaxSrcLen: 4, Beta: true, Seed: 2},
	} {
		m, err := New(cfg)
		if err != nil {
			f.Fatal(err)
		}
		path := filepath.Join(dir, "checkpoint.json")
		if err := m.Save(path, Checkpoint{Step: i}); err != nil {
			f.Fatal(err)
		}
		js, _ := os.ReadFile(path)
		st, _ := os.ReadFile(filepath.Join(dir, TensorsName(path, i)))
		f.Add(js, st)
	}
	f.Add([]byte(`{"config": {"cell": "gru", "encoder": "rnn", "decoder": "luong", "scorer": "dot", "src_vocab": 5, "tgt_vocab": 5, "embed": 1000000000, "hidden": 1000000000, "max_src_len": 3}, "params": []}`), []byte{})
	f.Add([]byte(`{"config": {"cell": "gru", "encoder": "rnn", "decoder": "luong", "scorer": "dot", "src_vocab": 5, "tgt_vocab": 5, "embed": 4, "hidden": 100000000, "max_src_len": 3}, "tensors": "t.safetensors"}`), []byte{})
	f.Add([]byte(`{"params": [{"name": "x", "shape": [2], "data": [1, 2]}]}`), []byte{})
	f.Fuzz(func(t *testing.T, js, st []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "checkpoint.json")
		if err := os.WriteFile(path, js, 0o644); err != nil {
			t.Fatal(err)
		}
		// every name a checkpoint could give its tensors file here
		for _, name := range []string{"t.safetensors", TensorsName(path, 0), TensorsName(path, 1)} {
			os.WriteFile(filepath.Join(dir, name), st, 0o644)
		}
		m, _, err := Load(path)
		if err != nil {
			if !strings.Contains(err.Error(), "checkpoint") && !strings.Contains(err.Error(), ".safetensors") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if float64(m.NumParams()) > float64(len(js)+len(st)) {
			t.Fatalf("a model of %d parameters from %d bytes", m.NumParams(), len(js)+len(st))
		}
	})
}
