package experiments

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/attnzoo/attnzoo/metrics"
	"github.com/attnzoo/attnzoo/tasks"
)

// TestFixedSplitsEndToEnd: an experiment file whose [task] names train,
// dev and test files (relative to the file), in the TSV layout and in
// Multi30k's plain-text layout (train.en / train.de, val.*,
// test_2016_flickr.*), trains a few steps and is scored on exactly the test
// file: every test pair is decoded, in file order, with the file's tokens
// (alignments.jsonl keeps them all), aer is reported against test_align's
// gold links, and aer_free (the free-running output's) is the one
// recomputed here from the saved links, by Och & Ney's formula.
func TestFixedSplitsEndToEnd(t *testing.T) {
	data, err := os.ReadFile("../testdata/tasks/tiny.tsv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	// tiny.tsv's last 12 lines are the test split, the 12 before them dev
	splits := map[string][]string{"train": lines[:len(lines)-24], "val": lines[len(lines)-24 : len(lines)-12], "test_2016_flickr": lines[len(lines)-12:]}
	dir := t.TempDir()
	f := tasks.TSVFormat{Lowercase: true}
	var want [][2][]string // the test pairs, tokenized
	var gold []string      // 1-based, as the alignment community writes them: i-i sure on the diagonal, 1p2 possible
	for name, ls := range splits {
		var tsv, en, de []string
		for _, l := range ls {
			cols := strings.Split(l, "\t")
			tsv = append(tsv, cols[0]+"\t"+cols[1])
			en, de = append(en, cols[0]), append(de, cols[1])
			if name == "test_2016_flickr" {
				src, tgt := f.Tokenize(cols[0]), f.Tokenize(cols[1])
				want = append(want, [2][]string{src, tgt})
				var links []string
				for i := 1; i <= min(len(src), len(tgt)); i++ {
					links = append(links, fmt.Sprintf("%d-%d", i, i))
				}
				gold = append(gold, strings.Join(links, " ")+" 1p2")
			}
		}
		for ext, ls := range map[string][]string{".tsv": tsv, ".en": en, ".de": de} {
			os.WriteFile(filepath.Join(dir, name+ext), []byte(strings.Join(ls, "\n")+"\n"), 0o644)
		}
	}
	os.WriteFile(filepath.Join(dir, "test.gold"), []byte(strings.Join(gold, "\n")+"\n"), 0o644)
	for _, layout := range []struct{ name, task string }{
		{"tsv", `train = "train.tsv"
dev = "val.tsv"
test = "test_2016_flickr.tsv"`},
		{"pairs", `train = "train"
dev = "val"
test = "test_2016_flickr"
src_lang = "en"
tgt_lang = "de"`},
	} {
		t.Run(layout.name, func(t *testing.T) {
			exp := filepath.Join(dir, layout.name+".toml")
			text := `name = "fixed"
[task]
name = "tsv"
` + layout.task + `
test_align = "test.gold"
test_align_base = 1
[model]
embed = 16
hidden = 32
attention = 16
[train]
steps = 4
batch = 16
eval_every = 2
eval_size = 5
[decode]
examples = 20
`
			os.WriteFile(exp, []byte(text), 0o644)
			out := t.TempDir()
			res := runExp(t, exp, out, Options{Workers: 1})
			m := res.Finished[0].Metrics
			al := readAlignments(t, filepath.Join(out, "fixed", "runs", "seed=1", "alignments.jsonl"))
			if len(al) != len(want) {
				t.Fatalf("%d test examples decoded, want the test file's %d", len(al), len(want))
			}
			var c metrics.AlignCounts
			for i, e := range al {
				if e.Index != i || !reflect.DeepEqual(e.Src, want[i][0]) || !reflect.DeepEqual(e.Ref, want[i][1]) {
					t.Errorf("test example %d: %d %q -> %q; want line %d of the test file: %q -> %q", i, e.Index, e.Src, e.Ref, i+1, want[i][0], want[i][1])
				}
				hyp, err := metrics.ParsePharaoh(e.Links)
				if err != nil {
					t.Fatal(err)
				}
				sure, _ := metrics.ParsePharaoh(e.Sure)
				poss, _ := metrics.ParsePharaoh(e.Possible) // S ∪ P, as FormatPharaoh wrote it
				// the gold file's links, 0-based: i-i and 0-1
				if n := min(len(want[i][0]), len(want[i][1])); len(sure) != n {
					t.Errorf("test example %d: %d sure links, want the diagonal's %d", i, len(sure), n)
				}
				c = c.Add(metrics.CountLinks(hyp, sure, poss))
			}
			// aer (forced decoding of the reference, align.go) is reported;
			// aer_free is the saved free-running links' against the gold:
			// AER = 1 − (|A∩S| + |A∩P|) / (|A| + |S|)
			if aer, ok := m["aer"]; !ok || aer < 0 || aer > 1 {
				t.Errorf("aer %v (reported: %v) in %v", aer, ok, m)
			}
			free, ok := m["aer_free"]
			if !ok {
				t.Fatalf("no aer_free in %v", m)
			}
			if want := 1 - float64(c.AS+c.AP)/float64(c.A+c.S); math.Abs(free-want) > 1e-12 {
				t.Errorf("aer_free %v, want %v from the saved links (%+v)", free, want, c)
			}
			// the forced alignment behind aer, exported as the community's
			// files are (a line a test pair, 0-based i-j), scored against the
			// gold file as given (1-based, with its possible links) by the
			// same formula, is the reported aer
			exported, err := os.ReadFile(filepath.Join(out, "fixed", "runs", "seed=1", "test.align"))
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(string(exported), "\n"), "\n")
			if len(lines) != len(gold) {
				t.Fatalf("test.align has %d lines, the test split %d pairs", len(lines), len(gold))
			}
			var f metrics.AlignCounts
			for i, line := range lines {
				hyp, err := metrics.ParsePharaoh(line)
				if err != nil {
					t.Fatalf("test.align line %d: %v", i+1, err)
				}
				sure, poss, err := metrics.ParseGoldBase(gold[i], 1)
				if err != nil {
					t.Fatal(err)
				}
				f = f.Add(metrics.CountLinks(hyp, sure, append(sure, poss...)))
			}
			if want := 1 - float64(f.AS+f.AP)/float64(f.A+f.S); math.Abs(m["aer"]-want) > 1e-12 {
				t.Errorf("aer %v, want %v from test.align against the gold file (%+v)", m["aer"], want, f)
			}
		})
	}
}

func readAlignments(t *testing.T, path string) []Example {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []Example
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var e Example
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

// TestFixedSplitsRefusedAtLoad: a bad line in a split's file is refused
// when the experiment file is loaded, before any run starts, naming the
// key, the file and the line.
func TestFixedSplitsRefusedAtLoad(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "train.tsv"), []byte("source\ttarget\na b\tx y\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "ok.tsv"), []byte("a b\tx y\n"), 0o644)
	exp := filepath.Join(dir, "e.toml")
	os.WriteFile(exp, []byte("name = \"x\"\n[task]\nname = \"tsv\"\ntrain = \"train.tsv\"\ndev = \"ok.tsv\"\ntest = \"ok.tsv\"\n"), 0o644)
	_, err := Load(exp)
	want := exp + ":4: [task] train: tsv: " + filepath.Join(dir, "train.tsv") + `:1: a header line ("source", "target")`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Load: %v\nwant …%s…", err, want)
	}
}
