package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/attnzoo/attnzoo/seq2seq"
	"github.com/attnzoo/attnzoo/tasks"
	"github.com/attnzoo/attnzoo/tasks/captioning"
)

// torchJSON runs a bench/pytorch script with args and decodes its JSON line.
func torchJSON(t *testing.T, py, script string, args ...string) map[string]any {
	t.Helper()
	cmd := exec.Command(py, append([]string{filepath.Join("..", "..", "bench", "pytorch", script)}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", script, args, err, stderr.String())
	}
	var got map[string]any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
	return got
}

// benchTSV writes a small corpus that exercises what the tsv task does
// before the model sees a word: capitals, punctuation split off ("Va !"),
// words kept whole ("l'homme", "peut-être", "3.5"), the typographic
// apostrophe, sources repeated with other targets (grouped into one
// split), a blank line and a third column; words repeat often enough that
// min_count 2 keeps some and drops others.
func benchTSV(t *testing.T) string {
	var b strings.Builder
	words := []string{"Va", "l'homme", "peut-être", "3.5", "chat", "Chien", "maison", "l’eau", "rouge", "vert", "bleu", "été"}
	for i := 0; i < 160; i++ {
		n := 2 + i%5
		var src, tgt []string
		for k := 0; k < n; k++ {
			src = append(src, words[(i*7+k*3)%len(words)])
			tgt = append(tgt, fmt.Sprintf("W%d", (i*5+k*k)%23))
		}
		if i%4 == 0 {
			src = append(src, "!")
		}
		if i%9 == 0 {
			src = append(src, fmt.Sprintf("rare%d", i)) // seen once: <unk>
		}
		fmt.Fprintf(&b, "%s\t%s", strings.Join(src, " "), strings.Join(tgt, " "))
		if i%11 == 0 {
			b.WriteString("\tCC-BY 2.0")
		}
		b.WriteString("\n")
		if i%13 == 0 {
			b.WriteString("\n")
		}
	}
	file := filepath.Join(t.TempDir(), "pairs.tsv")
	os.WriteFile(file, []byte(b.String()), 0o644)
	return file
}

// TestTorchCorpusParams: bench/pytorch/corpus.py reads a TSV as attnzoo's
// tsv task does — the same splits (Go's PCG shuffle redone in Python), the
// same first test sentences, the same vocabularies at min_count 2 — and its
// model has attnzoo's birnn/bahdanau/concat model's parameter count,
// exactly (nn.GRU's redundant bias blocks held at zero and not counted).
func TestTorchCorpusParams(t *testing.T) {
	py := torchPython(t)
	file := benchTSV(t)
	task, err := tasks.New("tsv", tasks.Options{"path": file, "min_count": 2})
	if err != nil {
		t.Fatal(err)
	}
	d, err := tasks.LoadContext(context.Background(), task, 1)
	if err != nil {
		t.Fatal(err)
	}
	m, err := seq2seq.New(seq2seq.Config{Cell: "gru", Encoder: "birnn", Decoder: "bahdanau", Scorer: "concat",
		SrcVocab: d.SrcVocab.Len(), TgtVocab: d.TgtVocab.Len(), Embed: 8, Hidden: 12, Attention: 12, MaxSrcLen: 8, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	got := torchJSON(t, py, "corpus.py", "--only", "params", "--tsv", file, "--embed", "8", "--hidden", "12", "--min-count", "2")
	test := d.Examples("test")
	want := map[string]float64{"params": float64(m.NumParams()), "src_vocab": float64(d.SrcVocab.Len()), "tgt_vocab": float64(d.TgtVocab.Len()),
		"train": float64(d.Split("train").Len()), "dev": float64(d.Split("dev").Len()), "test": float64(len(test))}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: pytorch %v, attnzoo %v", k, got[k], v)
		}
	}
	head, _ := got["test_head"].([]any)
	for i := 0; i < 2 && i < len(test); i++ {
		if w := strings.Join(test[i].Src, " "); i >= len(head) || head[i] != w {
			t.Errorf("test sentence %d: pytorch %v, attnzoo %q", i, head, w)
		}
	}
	if d.SrcVocab.Len() <= 4 || d.SrcVocab.ID("rare0") != tasks.UnkID || d.SrcVocab.ID("l'eau") == tasks.UnkID {
		t.Errorf("the corpus does not exercise min_count or the apostrophe: %v", d.SrcVocab.Tokens())
	}
}

// writeNPY writes a float32 array in .npy version 1.0 (NumPy's format
// description: magic, version, little-endian header length, a Python dict
// padded with spaces to a multiple of 64 bytes and ending in \n, the data).
func writeNPY(t *testing.T, file string, shape [3]int) {
	hdr := fmt.Sprintf("{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d, %d), }", shape[0], shape[1], shape[2])
	hdr += strings.Repeat(" ", 63-(10+len(hdr))%64) + "\n"
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(hdr)))
	b.WriteString(hdr)
	for i := 0; i < shape[0]*shape[1]*shape[2]; i++ {
		binary.Write(&b, binary.LittleEndian, float32(i%7)/7)
	}
	os.WriteFile(file, b.Bytes(), 0o644)
}

// TestTorchCaptioningParams: bench/pytorch/captioning.py reads features and
// Flickr8k-format captions as attnzoo's features task does (the image split
// shuffled by Go's PCG, the vocabulary from train's captions at min_count
// 2), and its Show-Attend-Tell model has attnzoo's parameter count
// (features encoder, LSTM, concat, β), exactly: nn.LSTMCell's b_hh held
// at zero and not counted.
func TestTorchCaptioningParams(t *testing.T) {
	py := torchPython(t)
	dir := t.TempDir()
	npy, caps := filepath.Join(dir, "f.npy"), filepath.Join(dir, "captions.txt")
	writeNPY(t, npy, [3]int{40, 4, 3})
	var b strings.Builder
	for i := 0; i < 40; i++ {
		for n := 0; n < 2; n++ {
			fmt.Fprintf(&b, "img%d.jpg#%d\tA dog%d runs near cat%d .\n", i, n, i%6, (i+n)%9)
		}
	}
	os.WriteFile(caps, []byte(b.String()), 0o644)
	task, err := captioning.New("features", tasks.Options{"npy": npy, "captions": caps, "min_count": 2})
	if err != nil {
		t.Fatal(err)
	}
	d, err := captioning.LoadContext(context.Background(), task, 1)
	if err != nil {
		t.Fatal(err)
	}
	m, err := seq2seq.New(seq2seq.Config{Cell: "lstm", Encoder: "features", Decoder: "bahdanau", Scorer: "concat", Beta: true,
		TgtVocab: d.Vocab.Len(), Regions: 4, RegionSize: 3, Embed: 8, Hidden: 10, Attention: 6, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	got := torchJSON(t, py, "captioning.py", "--only", "params", "--npy", npy, "--captions", caps,
		"--embed", "8", "--hidden", "10", "--attention", "6", "--min-count", "2")
	want := map[string]float64{"params": float64(m.NumParams()), "vocab": float64(d.Vocab.Len()),
		"train": float64(len(d.Train)), "dev": float64(len(d.Dev)), "test": float64(len(d.Test))}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: pytorch %v, attnzoo %v", k, got[k], v)
		}
	}
}

// TestCorpusTable: the bench-corpus table from a fixed folder. By hand:
// attnzoo trains 30 steps in 60 s, 2.000 s/step, against PyTorch's mean
// 2.5: 2.000 ÷ 2.5 = 0.80; decoding 50 ÷ 40 = 1.25; peak RSS 2457600 KiB
// = 2400 MiB against 2000 MiB: 1.20; the estimate 2147483648 bytes = 2048
// MiB, 2048 ÷ 2400 = 0.85 of the peak. A missing or malformed file is an
// error naming it.
func TestCorpusTable(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(text), 0o644)
	}
	write(corpusTorchFile, `{"system": "pytorch-1.13.0a0", "workload": "corpus", "blas_core": "Cooperlake", "threads": 1, "params": 10374013, "steps": 30, "s_step_median": 2.4, "s_step_mean": 2.5, "decode_s": 40.0, "maxrss_mb": 2000.0}`+"\n")
	write(corpusRSSFile, "2457600\n")
	write(filepath.Join(corpusResults, "bench-corpus", "runs", "seed=1", "final.json"),
		`{"run": "seed=1", "steps": 30, "train_seconds": 60, "test_decode_seconds": 50, "params": 10374013, "memory_estimate": {"total_bytes": 2147483648}, "provenance": {"go": "go1.26.8", "blas": "openblas", "products": "kern AVX-512"}}`)
	out := runOK(t, "bench", "--corpus-table", dir)
	hasAll(t, "table", out,
		"| corpus workload | PyTorch | attnzoo | attnzoo ÷ PyTorch |",
		"| parameters | 10,374,013 | 10,374,013 | |",
		"| training steps | 30 | 30 | |",
		"| train s/step (mean) | 2.500 | 2.000 | 0.80 |",
		"| train s/step (median) | 2.400 | — | |",
		"| test decoding s (greedy) | 40.0 | 50.0 | 1.25 |",
		"| peak RSS MiB | 2000 | 2400 | 1.20 |",
		"| attnzoo's pre-flight estimate MiB | | 2048 | 0.85 of its peak |",
		"OpenBLAS kernel Cooperlake",
		"attnzoo: go1.26.8, BLAS openblas.",
	)
	write(corpusRSSFile, "Command terminated by signal 9\n")
	if _, errs, code := runCLI(t, "bench", "--corpus-table", dir); code != 1 || !strings.Contains(errs, corpusRSSFile) {
		t.Errorf("bad maxrss: exit %d, stderr %q", code, errs)
	}
	write(corpusRSSFile, strconv.Itoa(1024))
	os.Remove(filepath.Join(dir, corpusResults, "bench-corpus", "runs", "seed=1", "final.json"))
	if _, errs, code := runCLI(t, "bench", "--corpus-table", dir); code != 1 || !strings.Contains(errs, "found 0") {
		t.Errorf("no final.json: exit %d, stderr %q", code, errs)
	}
	write(corpusTorchFile, "Traceback (most recent call last):\n")
	if _, errs, code := runCLI(t, "bench", "--corpus-table", dir); code != 1 || !strings.Contains(errs, corpusTorchFile) {
		t.Errorf("bad pytorch.json: exit %d, stderr %q", code, errs)
	}
}
