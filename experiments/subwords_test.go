package experiments

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/attnzoo/attnzoo/metrics"
	"github.com/attnzoo/attnzoo/tasks"
	"github.com/attnzoo/attnzoo/tasks/subword"
)

// pieceTask is the reverse task with every symbol x split into the BPE
// pieces x@@ x: its gold links stay word links, so the run must map
// attention to words before scoring AER.
type pieceTask struct{ tasks.Task }

func (pieceTask) Name() string { return "test-pieces" }

func (p pieceTask) Load(seed int64) (*tasks.Data, error) {
	d, err := p.Task.Load(seed)
	if err != nil {
		return nil, err
	}
	split := func(toks []string) []string {
		var out []string
		for _, x := range toks {
			out = append(out, x+subword.Separator, x)
		}
		return out
	}
	var srcs, tgts [][]string
	for _, exs := range [][]tasks.Example{d.Train, d.Dev, d.Test} {
		for i := range exs {
			exs[i].Src, exs[i].Tgt = split(exs[i].Src), split(exs[i].Tgt)
		}
	}
	for _, ex := range d.Train {
		srcs, tgts = append(srcs, ex.Src), append(tgts, ex.Tgt)
	}
	d.SrcVocab, d.TgtVocab = tasks.BuildVocab(srcs, 1, 0), tasks.BuildVocab(tgts, 1, 0)
	d.SrcScheme, d.TgtScheme = subword.BPEPieces, subword.BPEPieces
	return d, nil
}

func init() {
	tasks.Register("test-pieces", func(o tasks.Options) (tasks.Task, error) {
		t, err := tasks.New("reverse", o)
		if err != nil {
			return nil, err
		}
		return pieceTask{t}, nil
	})
}

// checkWordLevel checks what a run on subword pieces saved of every test
// example: words without "@@" or "▁", attention rows over source words
// (each a distribution), and BLEU recomputed on those words equal to the
// run's.
func checkWordLevel(t *testing.T, exs []Example, bleu float64) {
	t.Helper()
	var hyps [][]string
	var refs [][][]string
	pieces := 0
	for _, e := range exs {
		for _, w := range append(append(append([]string(nil), e.Hyp...), e.Ref...), e.Src...) {
			if strings.Contains(w, "@@") || strings.Contains(w, "▁") {
				t.Fatalf("example %d: word %q still carries a piece marker (hyp %q)", e.Index, w, e.Hyp)
			}
		}
		if len(e.SrcPieces) < len(e.Src) || len(e.HypPieces) < len(e.Hyp) {
			t.Fatalf("example %d: %d source pieces for %d words, %d output pieces for %d words", e.Index, len(e.SrcPieces), len(e.Src), len(e.HypPieces), len(e.Hyp))
		}
		pieces += len(e.SrcPieces) - len(e.Src)
		if len(e.Weights) < len(e.Hyp) || len(e.Weights) > len(e.Hyp)+1 {
			t.Fatalf("example %d: %d attention rows for %d output words", e.Index, len(e.Weights), len(e.Hyp))
		}
		for _, row := range e.Weights {
			sum := 0.0
			for _, v := range row {
				sum += v
			}
			if len(row) != len(e.Src) || math.Abs(sum-1) > 1e-6 {
				t.Fatalf("example %d: row of %d columns summing to %v, want %d source words summing to 1", e.Index, len(row), sum, len(e.Src))
			}
		}
		hyps, refs = append(hyps, e.Hyp), append(refs, [][]string{e.Ref})
	}
	if pieces == 0 {
		t.Error("no source word was split into pieces: the test shows nothing")
	}
	b, err := metrics.CorpusBLEU(hyps, refs, metrics.BLEUOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(b.BLEU-bleu) > 1e-9 {
		t.Errorf("run's BLEU %v, BLEU of the saved words %v", bleu, b.BLEU)
	}
}

// subwordSplits writes tiny.tsv as fixed splits (its last 12 lines the
// test split, the 12 before them dev) with test.gold: the diagonal links
// of each test pair's words (0-based).
func subwordSplits(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../testdata/tasks/tiny.tsv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	for i, l := range lines {
		cols := strings.Split(l, "\t")
		lines[i] = cols[0] + "\t" + cols[1]
	}
	n := len(lines)
	dir := t.TempDir()
	var gold []string
	f := tasks.TSVFormat{Lowercase: true}
	for _, l := range lines[n-12:] {
		cols := strings.Split(l, "\t")
		var links []string
		// the source's words are the word tokenizer's (BPE splits them);
		// the target's, in SentencePiece pieces, what lies between spaces
		for i := range min(len(f.Tokenize(cols[0])), len(strings.Fields(cols[1]))) {
			links = append(links, fmt.Sprintf("%d-%d", i, i))
		}
		gold = append(gold, strings.Join(links, " "))
	}
	for name, text := range map[string][]string{"train.tsv": lines[:n-24], "dev.tsv": lines[n-24 : n-12], "test.tsv": lines[n-12:], "test.gold": gold} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.Join(text, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestSubwordRuns: a tsv run on BPE pieces (source) and SentencePiece
// pieces (target), with gold word links for its test file, reports BLEU on
// the de-subworded words and AER at the word level; so does a run on a
// generated task of BPE pieces with gold word links.
func TestSubwordRuns(t *testing.T) {
	codes, _ := filepath.Abs("../testdata/tasks/tiny.bpe-codes")
	model, _ := filepath.Abs("../tasks/subword/testdata/spm-bpe.model")
	dir := subwordSplits(t)
	text := `name = "sub"
[task]
name = "tsv"
train = "` + filepath.Join(dir, "train.tsv") + `"
dev = "` + filepath.Join(dir, "dev.tsv") + `"
test = "` + filepath.Join(dir, "test.tsv") + `"
test_align = "` + filepath.Join(dir, "test.gold") + `"
src_tokenizer = "bpe"
src_bpe_codes = "` + codes + `"
tgt_tokenizer = "sentencepiece"
tgt_spm_model = "` + model + `"
` + subwordRun
	out := t.TempDir()
	res := runExp(t, writeExp(t, text), out, Options{Workers: 1})
	m := res.Finished[0].Metrics
	exs, err := readExamples(filepath.Join(out, "sub", "runs", "scorer=dot_seed=1"))
	if err != nil {
		t.Fatal(err)
	}
	checkWordLevel(t, exs, m["bleu"])
	if len(exs) != 12 {
		t.Errorf("%d test examples saved, want the test file's 12", len(exs))
	}
	checkWordAER(t, exs, m)
	// attnzoo decode gives words too.
	tr, err := LoadRun(filepath.Join(out, "sub", "runs", "scorer=dot_seed=1"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := tr.DecodeText("Thank you.", 1)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"th@@", "an@@", "k", "you", "."}; strings.Join(d.SrcPieces, " ") != strings.Join(want, " ") ||
		strings.Join(d.Src, " ") != "thank you ." {
		t.Errorf("decode: source %q, pieces %q; want [thank you .] and %q (subword-nmt's apply-bpe)", d.Src, d.SrcPieces, want)
	}
	if len(d.Align) < len(d.Out) || len(d.Align) > len(d.Out)+1 || len(d.Align[0]) != 3 {
		t.Errorf("decode: %d×%d attention for %d output and 3 source words", len(d.Align), len(d.Align[0]), len(d.Out))
	}
	for _, w := range d.Out {
		if strings.Contains(w, "▁") {
			t.Errorf("decode: output word %q carries ▁ (output %q)", w, d.Out)
		}
	}

	text = `name = "pieces"
[task]
name = "test-pieces"
train = 200
dev = 8
test = 16
` + subwordRun
	out = t.TempDir()
	res = runExp(t, writeExp(t, text), out, Options{Workers: 1})
	m = res.Finished[0].Metrics
	exs, err = readExamples(filepath.Join(out, "pieces", "runs", "scorer=dot_seed=1"))
	if err != nil {
		t.Fatal(err)
	}
	checkWordLevel(t, exs, m["bleu"])
	checkWordAER(t, exs, m)
}

// checkWordAER checks a run's AER scores against what it saved at the word
// level: aer_free, of the free-running output's word links, is the AER of
// the saved word links against the saved gold word links; the forced aer's
// baselines (aer_diag, aer_uniform), recomputed from the saved words'
// lengths, are the run's, so the forced attention too was mapped to words.
func checkWordAER(t *testing.T, exs []Example, m map[string]float64) {
	t.Helper()
	for _, k := range []string{"aer", "aer_free", "aer_diag", "aer_uniform"} {
		if _, ok := m[k]; !ok {
			t.Fatalf("no %s in %v", k, m)
		}
	}
	var links, sure [][]metrics.Link
	var diag [][]metrics.Link
	var srcLens, refLens []int
	for _, e := range exs {
		l, err := metrics.ParsePharaoh(e.Links)
		if err != nil {
			t.Fatal(err)
		}
		s, err := metrics.ParsePharaoh(e.Sure)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range l {
			if x.Src >= len(e.Src) || x.Tgt >= len(e.Hyp) {
				t.Fatalf("example %d: link %v outside %d source × %d output words", e.Index, x, len(e.Src), len(e.Hyp))
			}
		}
		for _, x := range s {
			if x.Src >= len(e.Src) || x.Tgt >= len(e.Ref) {
				t.Fatalf("example %d: gold link %v outside %d source × %d reference words", e.Index, x, len(e.Src), len(e.Ref))
			}
		}
		links, sure = append(links, l), append(sure, s)
		diag = append(diag, metrics.DiagonalLinks(len(e.Src), len(e.Ref)))
		srcLens, refLens = append(srcLens, len(e.Src)), append(refLens, len(e.Ref))
	}
	c, err := metrics.CorpusAER(links, sure, sure)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(c.AER()-m["aer_free"]) > 1e-9 {
		t.Errorf("run's aer_free %v, AER of the saved word links %v", m["aer_free"], c.AER())
	}
	if c, err = metrics.CorpusAER(diag, sure, sure); err != nil || math.Abs(c.AER()-m["aer_diag"]) > 1e-9 {
		t.Errorf("run's aer_diag %v, the words' diagonal %v (%v)", m["aer_diag"], c.AER(), err)
	}
	if u, err := metrics.UniformAER(srcLens, refLens, sure, sure); err != nil || math.Abs(u-m["aer_uniform"]) > 1e-9 {
		t.Errorf("run's aer_uniform %v, the words' uniform AER %v (%v)", m["aer_uniform"], u, err)
	}
}

// subwordRun is the model, training and decoding of the subword runs:
// 20 steps, every test example kept, one scorer.
const subwordRun = `[model]
embed = 16
hidden = 32
attention = 16
[train]
steps = 20
batch = 16
eval_every = 20
eval_size = 8
[decode]
examples = 1000
[plots]
formats = []
[sweep]
scorer = ["dot"]
`
