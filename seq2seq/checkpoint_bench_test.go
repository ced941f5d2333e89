package seq2seq

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkCheckpoint16M saves and loads a 16M-parameter float32 model
// (hidden 1024, vocabularies of 1000) with its Adam moments, and reports
// the size of the tensors file in bytes per number held (4 for each
// parameter entry, 8 for each float64 moment: (4 + 8 + 8) / 3 ≈ 6.7).
//
//	go test ./seq2seq/ -run '^$' -bench Checkpoint16M -benchtime 3x
func BenchmarkCheckpoint16M(b *testing.B) {
	cfg := smallConfig("general", "bahdanau")
	cfg.SrcVocab, cfg.TgtVocab, cfg.Embed, cfg.Hidden, cfg.Attention = 1000, 1000, 256, 1024, 1024
	m, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	st := OptimizerState{T: 1}
	for _, p := range m.Params() {
		st.M = append(st.M, make([]float64, p.Size()))
		st.V = append(st.V, make([]float64, p.Size()))
	}
	path := filepath.Join(b.TempDir(), "checkpoint.json")
	var save, load time.Duration
	step := 0
	for b.Loop() {
		step++
		t0 := time.Now()
		if err := m.Save(path, Checkpoint{Step: step, Optimizer: &st}); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, _, err := Load(path); err != nil {
			b.Fatal(err)
		}
		save, load = save+t1.Sub(t0), load+time.Since(t1)
	}
	b.ReportMetric(save.Seconds()/float64(step), "s/save")
	b.ReportMetric(load.Seconds()/float64(step), "s/load")
	fi, err := os.Stat(filepath.Join(filepath.Dir(path), TensorsName(path, step)))
	if err != nil {
		b.Fatal(err)
	}
	n := m.NumParams()
	b.ReportMetric(float64(n)/1e6, "Mparams")
	b.ReportMetric(float64(fi.Size())/float64(3*n), "bytes/number")
}
