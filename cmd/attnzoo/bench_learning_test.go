package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLearningTable: make bench-learning's table from a folder of two
// initialisations. The diffs are (attnzoo − PyTorch) ÷ PyTorch: 5.5 against
// 5.0 is +10.0%, 3.8 against 4.0 is −5.0%; the largest |diff| of the first
// scheme is 10%. BLEU 24.9 − 25.04 = −0.14. A missing or malformed file is
// an error naming it.
func TestLearningTable(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	scheme := func(sub, embed, weights, pt, bleu, az string, azBLEU string) {
		write(sub+"/pytorch.jsonl", `{"system": "pytorch-1.13.0a0", "blas_core": "Zen", "init_embed": "`+embed+`", "init_weights": "`+weights+`"}
`+pt+`{"done": true, "train_s": 12.5}
`)
		write(sub+"/pytorch.bleu", `{"bleu":`+bleu+`,"signature":"nrefs:1|case:mixed|eff:no|tok:none|smooth:exp|version:attnzoo-2.6.0"}`)
		run := sub + "/results/bench-learning/runs/seed=1/"
		write(run+"metrics.jsonl", az)
		write(run+"final.json", `{"run": "seed=1", "seed": 1, "metrics": {"bleu": `+azBLEU+`}, "steps": 100, "train_seconds": 10}`)
	}
	scheme("a", "pytorch", "pytorch", `{"step": 50, "loss": 5.0}
{"step": 100, "loss": 4.0}
`, "25.04", `{"step":50,"loss":5.5}
{"step":100,"loss":3.8}
`, "24.9")
	scheme("b", "uniform(0.1)", "glorot", `{"step": 50, "loss": 6.0}
{"step": 100, "loss": 5.0}
`, "2.5", `{"step":50,"loss":6.0}
{"step":100,"loss":5.1}
`, "2.6")
	out := runOK(t, "bench", "--learning-table", dir)
	hasAll(t, "table", out,
		"| steps | PyTorch (pytorch, pytorch) | attnzoo (pytorch, pytorch) | diff | PyTorch (uniform(0.1), glorot) | attnzoo (uniform(0.1), glorot) | diff |",
		"| 1–50 | 5.000 | 5.500 | +10.0% | 6.000 | 6.000 | +0.0% |",
		"| 51–100 | 4.000 | 3.800 | -5.0% | 5.000 | 5.100 | +2.0% |",
		"| test BLEU | 25.04 | 24.90 | -0.14 | 2.50 | 2.60 | +0.10 |",
		"| training seconds | 12.5 | 10.0 | ×0.80 | 12.5 | 10.0 | ×0.80 |", // 10 ÷ 12.5
		"init pytorch, pytorch: attnzoo's 50-step mean loss at most 10.00% from PyTorch's in any window; BLEU after 100 steps 24.90 vs 25.04.",
		"PyTorch: pytorch-1.13.0a0, OpenBLAS kernel Zen.",
	)
	os.Remove(filepath.Join(dir, "b", "pytorch.bleu"))
	if _, errs, code := runCLI(t, "bench", "--learning-table", dir); code != 1 || !strings.Contains(errs, filepath.Join("b", "pytorch.bleu")) {
		t.Errorf("missing pytorch.bleu: exit %d, stderr %q", code, errs)
	}
	write("b/pytorch.bleu", `{"score": 2.5}`)
	if _, errs, code := runCLI(t, "bench", "--learning-table", dir); code != 1 || !strings.Contains(errs, "want attnzoo eval bleu --json's line") {
		t.Errorf("malformed pytorch.bleu: exit %d, stderr %q", code, errs)
	}
	write("b/pytorch.bleu", `{"bleu": 2.5}`)
	write("b/pytorch.jsonl", "Traceback (most recent call last):\n")
	if _, errs, code := runCLI(t, "bench", "--learning-table", dir); code != 1 || !strings.Contains(errs, "pytorch.jsonl:1") {
		t.Errorf("malformed pytorch.jsonl: exit %d, stderr %q", code, errs)
	}
}
