package seq2seq

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoadCheckpoint feeds arbitrary bytes to checkpoint loading: an error
// naming the file or a model, never a panic, and never a model larger than
// the file could describe (checkHeld: a hostile hidden = 10⁹ is refused
// before anything is allocated).
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
		path := filepath.Join(dir, "seed")
		if err := m.Save(path, nil, nil, i); err != nil {
			f.Fatal(err)
		}
		data, _ := os.ReadFile(path)
		f.Add(data)
	}
	f.Add([]byte(`{"config": {"cell": "gru", "encoder": "rnn", "decoder": "luong", "scorer": "dot", "src_vocab": 5, "tgt_vocab": 5, "embed": 1000000000, "hidden": 1000000000, "max_src_len": 3}, "params": []}`))
	f.Add([]byte(`{"params": [{"name": "x", "shape": [2], "data": [1, 2]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(t.TempDir(), "checkpoint")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		m, ck, err := Load(path)
		if err != nil {
			if !strings.Contains(err.Error(), "checkpoint") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		held := 0
		for _, p := range ck.Params {
			held += len(p.Data)
		}
		if m.NumParams() > held {
			t.Fatalf("a model of %d parameters from a checkpoint of %d values", m.NumParams(), held)
		}
	})
}
