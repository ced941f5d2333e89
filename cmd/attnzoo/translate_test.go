package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// translateExp trains two seeds of a tiny word-reversal model on fixed tsv
// splits (writeReversal), the target side as BPE pieces of codes learned
// by `bpe learn`, with model selection on dev BLEU and BLEU as sacreBLEU's
// 13a. The task lowercases its text (the tsv default).
const translateExp = `name = "tr"
seeds = [1, 2]
[task]
name = "tsv"
train = "train.tsv"
dev = "dev.tsv"
test = "test.tsv"
tgt_tokenizer = "bpe"
tgt_bpe_codes = "codes"
[model]
embed = 8
hidden = 16
attention = 8
scorer = "dot"
[train]
steps = 60
batch = 16
lr = 0.01
eval_every = 20
select = "bleu"
[decode]
bleu_tokenize = "13a"
`

// writeReversal writes n lines "SOURCE<TAB>TARGET" to path: 3 to 5 words
// of a ten-word vocabulary, some capitalised, and the same words reversed.
// Words are ASCII letters separated by single spaces, with no
// punctuation, so the tsv task's word tokenizer and sacreBLEU's 13a both
// split them at the spaces.
func writeReversal(t *testing.T, path string, n int, rng *rand.Rand) {
	words := []string{"Red", "blue", "green", "Cat", "dog", "big", "small", "runs", "sees", "Tree"}
	var b strings.Builder
	for range n {
		s := make([]string, 3+rng.IntN(3))
		for i := range s {
			s[i] = words[rng.IntN(len(words))]
		}
		r := slices.Clone(s)
		slices.Reverse(r)
		fmt.Fprintf(&b, "%s\t%s\n", strings.Join(s, " "), strings.Join(r, " "))
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// column writes column col (0 or 1) of the tsv file path to a file of its
// own and returns that file.
func column(t *testing.T, path string, col int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		b.WriteString(strings.Split(l, "\t")[col] + "\n")
	}
	out := fmt.Sprintf("%s.%d", path, col)
	if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTranslate: `attnzoo translate` over a run's test split writes the
// run's test.hyp line for line; `eval bleu` on test.hyp gives the BLEU of
// final.json with its signature; decode and translate use best.json's
// checkpoint for a run with [train] select, and say so, even where the last
// checkpoint is another model.
func TestTranslate(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, s := range []struct {
		name string
		n    int
	}{{"train", 300}, {"dev", 20}, {"test", 30}} {
		writeReversal(t, filepath.Join(dir, s.name+".tsv"), s.n, rng)
	}
	runOK(t, "bpe", "learn", "--symbols", "10", "-i", column(t, filepath.Join(dir, "train.tsv"), 1), "-o", filepath.Join(dir, "codes"))
	exp := filepath.Join(dir, "tr.toml")
	os.WriteFile(exp, []byte(translateExp), 0o644)
	// the task's paths are relative to the experiment file's folder
	runOK(t, "run", exp, "--out", filepath.Join(dir, "out"))
	runs := filepath.Join(dir, "out", "tr", "runs")
	run1, run2 := filepath.Join(runs, "seed=1"), filepath.Join(runs, "seed=2")
	src, ref := column(t, filepath.Join(dir, "test.tsv"), 0), column(t, filepath.Join(dir, "test.tsv"), 1)

	read := func(path string) string {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	hyp := read(filepath.Join(run1, "test.hyp"))
	if n := strings.Count(hyp, "\n"); n != 30 {
		t.Fatalf("test.hyp has %d lines for 30 test examples", n)
	}
	if strings.Contains(hyp, "@@") {
		t.Errorf("test.hyp holds BPE pieces:\n%s", hyp)
	}
	var final struct {
		Metrics       map[string]float64 `json:"metrics"`
		BLEUSignature string             `json:"bleu_signature"`
		Selected      struct{ Step int } `json:"selected"`
	}
	if err := json.Unmarshal([]byte(read(filepath.Join(run1, "final.json"))), &final); err != nil {
		t.Fatal(err)
	}

	// translate over the test sources gives test.hyp, line for line
	out, errs, code := runCLI(t, "translate", run1, "--input", src)
	if code != 0 {
		t.Fatalf("translate: exit %d: %s", code, errs)
	}
	if out != hyp {
		t.Errorf("translate of the test sources:\n%s\nthe run's test.hyp:\n%s", out, hyp)
	}
	best := fmt.Sprintf("checkpoint best.json (step %d, the best dev bleu: [train] select)", final.Selected.Step)
	if !strings.Contains(errs, best) {
		t.Errorf("translate's stderr does not say %q:\n%s", best, errs)
	}

	// eval bleu on test.hyp gives final.json's BLEU and signature. They
	// must be equal: the same hypotheses (test.hyp is the run's greedy
	// test output, words joined by spaces, what runBLEU scored); the same
	// references (the test file's targets, which the task lowercased and
	// split into words; --lowercase lowercases them as that did on ASCII,
	// and BPE on the target side is undone before scoring); the same
	// tokenisation (bleu_tokenize = "13a" with exp smoothing, eval bleu's
	// defaults, and 13a splits these space-separated ASCII words exactly
	// as the task's word tokenizer did). Against test.ref, the references
	// as the run scored them, no --lowercase is needed.
	type bleu struct {
		BLEU      float64 `json:"bleu"`
		Signature string  `json:"signature"`
	}
	for _, args := range [][]string{
		{"--lowercase", "--ref", ref},
		{"--ref", filepath.Join(run1, "test.ref")},
	} {
		out := runOK(t, append([]string{"eval", "bleu", "--json", "--hyp", filepath.Join(run1, "test.hyp")}, args...)...)
		var got bleu
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		if want := final.Metrics["bleu"]; math.Abs(got.BLEU-want) > 1e-9 || got.BLEU == 0 {
			t.Errorf("eval bleu %v: %v, final.json's bleu %v", args, got.BLEU, want)
		}
		if args[0] == "--lowercase" && got.Signature != final.BLEUSignature {
			t.Errorf("eval bleu --lowercase signature %q, final.json's %q", got.Signature, final.BLEUSignature)
		}
	}
	if want := "nrefs:1|case:lc|eff:no|tok:13a|smooth:exp|version:attnzoo-2.6.0"; final.BLEUSignature != want {
		t.Errorf("final.json bleu_signature %q, want %q", final.BLEUSignature, want)
	}
	if md := read(filepath.Join(dir, "out", "tr", "summary.md")); !strings.Contains(md, "`BLEU|"+final.BLEUSignature+"`") {
		t.Errorf("summary.md does not name the BLEU signature:\n%s", md)
	}
	if html := read(filepath.Join(dir, "out", "tr", "report.html")); !strings.Contains(html, "BLEU|"+final.BLEUSignature) {
		t.Errorf("report.html does not name the BLEU signature")
	}

	// best != last: seed 1's last checkpoint replaced by seed 2's (another
	// model), its best.json kept. translate and decode must still use
	// best.json, the model test.hyp came from.
	for _, f := range []string{"checkpoint.json", "checkpoint-60.safetensors"} {
		if err := os.WriteFile(filepath.Join(run1, f), []byte(read(filepath.Join(run2, f))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// the same folder without select loads the last checkpoint: seed 2's
	last := filepath.Join(dir, "last")
	os.Mkdir(last, 0o755)
	for _, f := range []string{"checkpoint.json", "checkpoint-60.safetensors"} {
		os.WriteFile(filepath.Join(last, f), []byte(read(filepath.Join(run2, f))), 0o644)
	}
	os.WriteFile(filepath.Join(last, "config.toml"), []byte(strings.Replace(read(filepath.Join(run1, "config.toml")), `select = "bleu"`, "", 1)), 0o644)
	out, errs, code = runCLI(t, "translate", run1, "--input", src)
	if code != 0 || out != hyp {
		t.Errorf("translate with best.json after the last checkpoint changed: exit %d, %s\n%s\nwant test.hyp:\n%s", code, errs, out, hyp)
	}
	lastOut, errs, code := runCLI(t, "translate", last, "--input", src)
	if code != 0 || !strings.Contains(errs, "checkpoint checkpoint.json (step 60, the last)") {
		t.Fatalf("translate without select: exit %d: %s", code, errs)
	}
	if lastOut == hyp {
		t.Fatal("seed 2's last checkpoint translates the test split as seed 1's best: best != last is not tested")
	}
	translateLines(t, dir, last, src)
	// decode: the first test source the two models translate differently;
	// decode (beam 1) with best.json gives test.hyp's line
	i, hl, ll := 0, strings.Split(hyp, "\n"), strings.Split(lastOut, "\n")
	for hl[i] == ll[i] {
		i++
	}
	input := strings.Split(read(src), "\n")[i]
	out, errs, code = runCLI(t, "decode", run1, "--input", input)
	if code != 0 || !strings.Contains(errs, best) || !strings.Contains(out, "output: "+hl[i]+"\n") {
		t.Errorf("decode %q with best.json: exit %d, %s\n%s\nwant output %q", input, code, errs, out, hl[i])
	}
}

// translateLines: an empty input line (or one of white space) gives an
// empty output line, so the line counts always match; CRLF and a missing
// final newline are read as "\n"; bad flags are usage errors. run is a
// trained run without select, src its test sources.
func translateLines(t *testing.T, dir, run, src string) {
	t.Helper()
	data, _ := os.ReadFile(src)
	l := strings.Split(string(data), "\n")
	three := filepath.Join(dir, "three.txt")
	os.WriteFile(three, []byte(l[0]+"\n"+l[1]+"\n"+l[2]+"\n"), 0o644)
	in := filepath.Join(dir, "in.txt")
	os.WriteFile(in, []byte(l[0]+"\n\n   \n"+l[1]+"\r\n"+l[2]), 0o644)
	want := strings.Split(runOK(t, "translate", run, "--input", three), "\n")
	stdout, errs, code := runCLI(t, "translate", run, "--input", in)
	if code != 0 {
		t.Fatalf("translate: exit %d: %s", code, errs)
	}
	if got := strings.Split(stdout, "\n"); len(got) != 6 || got[0] != want[0] || got[1] != "" || got[2] != "" || got[3] != want[1] || got[4] != want[2] || got[5] != "" || want[0] == "" {
		t.Errorf("5 input lines, the 2nd and 3rd without tokens: got %q; the others alone give %q", stdout, want)
	}
	if !strings.Contains(errs, "5 lines") {
		t.Errorf("stderr: %s", errs)
	}
	for _, args := range [][]string{
		{"translate"},
		{"translate", run, "--beam", "-1"},
		{"translate", run, "--batch", "-2"},
		{"translate", run, "extra"},
	} {
		if _, errs, code := runCLI(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (usage): %s", args, code, errs)
		}
	}
	if _, errs, code := runCLI(t, "translate", run, "--input", filepath.Join(dir, "nope.txt")); code != 1 || !strings.Contains(errs, "nope.txt") {
		t.Errorf("missing input: exit %d, %s", code, errs)
	}
}
