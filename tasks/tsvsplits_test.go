package tasks

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/attnzoo/attnzoo/metrics"
)

// writeFiles writes each name's lines (each followed by "\n") into dir.
func writeFiles(t *testing.T, dir string, files map[string][]string) {
	t.Helper()
	for name, lines := range files {
		text := ""
		for _, l := range lines {
			text += l + "\n"
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// joined is a split's pairs as "source ||| target", tokens space-joined.
func joined(exs []Example) []string {
	var out []string
	for _, ex := range exs {
		out = append(out, strings.Join(ex.Src, " ")+" ||| "+strings.Join(ex.Tgt, " "))
	}
	return out
}

// The splits of the fixed-split tests, as tokenized by the word tokenizer
// with lowercasing (one pair a line, in file order).
var (
	fixedTrain = []string{"der hund schläft . ||| the dog sleeps .", "die katze schläft . ||| the cat sleeps .",
		"der hund läuft . ||| the dog runs .", "ein hund ! ||| a dog !"}
	fixedDev  = []string{"die katze läuft . ||| the cat runs ."}
	fixedTest = []string{"der vogel singt . ||| the bird sings .", "die katze ! ||| the cat !"}
)

// TestTSVFixedSplits: train, dev and test paths, in the TSV layout and in
// the plain-text pair layout (train.de / train.en), give exactly those
// files' pairs as the splits, in file order, and the vocabularies come
// from the training file alone.
func TestTSVFixedSplits(t *testing.T) {
	dir := t.TempDir()
	tsv := func(lines []string) []string {
		var out []string
		for _, l := range lines {
			src, tgt, _ := strings.Cut(l, " ||| ")
			out = append(out, strings.ToUpper(src[:1])+src[1:]+"\t"+tgt) // the first letter capitalised: lowercase undoes it
		}
		return out
	}
	side := func(lines []string, i int) []string {
		var out []string
		for _, l := range lines {
			out = append(out, strings.Split(l, " ||| ")[i])
		}
		return out
	}
	writeFiles(t, dir, map[string][]string{
		"train.tsv": tsv(fixedTrain), "dev.tsv": tsv(fixedDev), "test.tsv": tsv(fixedTest),
		"train.de": side(fixedTrain, 0), "train.en": side(fixedTrain, 1),
		"val.de": side(fixedDev, 0), "val.en": side(fixedDev, 1),
		"test_2016_flickr.de": side(fixedTest, 0), "test_2016_flickr.en": side(fixedTest, 1),
	})
	at := func(name string) string { return filepath.Join(dir, name) }
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{"tsv", Options{"train": at("train.tsv"), "dev": at("dev.tsv"), "test": at("test.tsv")}},
		{"pairs", Options{"train": at("train"), "dev": at("val"), "test": at("test_2016_flickr"), "src_lang": "de", "tgt_lang": "en"}},
		{"mixed", Options{"train": at("train"), "dev": at("dev.tsv"), "test": at("test_2016_flickr"), "src_lang": "de", "tgt_lang": "en"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := load(t, "tsv", tc.opts, 1)
			for split, want := range map[string][]string{"train": fixedTrain, "dev": fixedDev, "test": fixedTest} {
				if got := joined(d.Examples(split)); !reflect.DeepEqual(got, want) {
					t.Errorf("%s: %q\nwant %q", split, got, want)
				}
			}
			// train's words: der die ein hund katze schläft läuft . ! (9); vogel
			// and singt are only in test
			if n := d.SrcVocab.Len(); n != 4+9 {
				t.Errorf("source vocabulary %v: want the 4 specials and train's 9 words", d.SrcVocab.Tokens())
			}
			if d.SrcVocab.ID("vogel") != UnkID || d.TgtVocab.ID("bird") != UnkID {
				t.Error("a test-only word is in a vocabulary")
			}
			// the test pair's ids: vogel and singt are unknown; Example keeps them
			src, tgt := d.Split("test").IDs(0)
			wantSrc := []int{d.SrcVocab.ID("der"), UnkID, UnkID, d.SrcVocab.ID(".")}
			if !reflect.DeepEqual(src, wantSrc) || len(tgt) != 4 || tgt[2] != UnkID {
				t.Errorf("test pair 0 ids %v %v, want source %v", src, tgt, wantSrc)
			}
			if d.Split("test").Aligned() {
				t.Error("test aligned without test_align")
			}
		})
	}
	// max_len drops long pairs from train only: dev and test are scored whole
	d := load(t, "tsv", Options{"train": at("train.tsv"), "dev": at("dev.tsv"), "test": at("test.tsv"), "max_len": 3}, 1)
	if got := joined(d.Examples("train")); !reflect.DeepEqual(got, fixedTrain[3:]) {
		t.Errorf("max_len 3: train %q, want only %q", got, fixedTrain[3:])
	}
	if len(d.Examples("dev")) != 1 || len(d.Examples("test")) != 2 {
		t.Error("max_len dropped dev or test pairs")
	}
}

// TestTSVTestAlign: a gold alignment file for the test split, 1-based with
// sure (i-j) and possible (ipj) links as the alignment community writes
// them, gives each test pair its links, 0-based, source first.
func TestTSVTestAlign(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string][]string{
		"train.de": {"der hund", "die katze"}, "train.en": {"the dog", "the cat"},
		"test.de": {"der hund schläft", "die katze"}, "test.en": {"the dog sleeps", "the cat"},
		// 1-based: 1-1 2-2 3-3 and a possible 3p2 (schläft ~ dog); an empty
		// line is a pair without links
		"test.gold": {"1-1 2-2 3-3 3p2", ""},
		"bad.gold":  {"1-1 2-2 4-3", ""},
		"zero.gold": {"0-0", ""},
		"short":     {"1-1"},
	})
	at := func(name string) string { return filepath.Join(dir, name) }
	opts := func(gold string, base int) Options {
		return Options{"train": at("train"), "dev": at("train"), "test": at("test"), "src_lang": "de", "tgt_lang": "en",
			"tokenizer": "space", "test_align": at(gold), "test_align_base": base}
	}
	d := load(t, "tsv", opts("test.gold", 1), 1)
	test := d.Split("test")
	if !test.Aligned() || d.Split("dev").Aligned() {
		t.Errorf("aligned: test %v, dev %v; want true, false", test.Aligned(), d.Split("dev").Aligned())
	}
	ex := test.Example(0)
	// 0-based, sorted by target then source: 0-0 1-1 2-2; possible adds 2-1
	wantSure := []metrics.Link{{Src: 0, Tgt: 0}, {Src: 1, Tgt: 1}, {Src: 2, Tgt: 2}}
	wantPoss := []metrics.Link{{Src: 0, Tgt: 0}, {Src: 1, Tgt: 1}, {Src: 2, Tgt: 1}, {Src: 2, Tgt: 2}}
	if !reflect.DeepEqual(ex.Sure, wantSure) || !reflect.DeepEqual(ex.Possible, wantPoss) {
		t.Errorf("pair 0: sure %v possible %v; want %v and %v", ex.Sure, ex.Possible, wantSure, wantPoss)
	}
	if ex := test.Example(1); ex.Sure == nil || len(ex.Sure) != 0 || ex.Possible != nil {
		t.Errorf("pair 1: sure %#v possible %v; want empty (not nil) and nil", ex.Sure, ex.Possible)
	}
	for _, tc := range []struct {
		gold string
		base int
		want string
	}{
		// 4-3 is source token 4 of a 3-token source
		{"bad.gold", 1, "bad.gold:1: link 4-3 is outside the test pair's 3 source and 3 target tokens (indices from 1)"},
		// 0-based, 3-3 is outside too
		{"test.gold", 0, "test.gold:1: link 3-3 is outside the test pair's 3 source and 3 target tokens (indices from 0)"},
		{"short", 1, "short has 1 lines, the test split 2 pairs: one line per pair"},
		{"zero.gold", 1, `zero.gold:1: metrics: bad Pharaoh token "0-0": index below 1 in 1-based links`},
	} {
		task, err := New("tsv", opts(tc.gold, tc.base))
		if err != nil {
			t.Fatal(err)
		}
		_, err = task.Load(1)
		if err == nil || !strings.HasSuffix(err.Error(), tc.want) {
			t.Errorf("%s: Load: %v\nwant …%s", tc.gold, err, tc.want)
		}
		if _, err := task.(SizeChecker).CheckSize(context.Background()); err == nil || !strings.HasSuffix(err.Error(), tc.want) {
			t.Errorf("%s: CheckSize: %v\nwant …%s", tc.gold, err, tc.want)
		}
	}
}

// TestTSVFixedSplitRefusals: each mistake in a split's files is refused
// with the file and line, by New (a missing file) or by CheckSize and Load
// (the files' lines).
func TestTSVFixedSplitRefusals(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string][]string{
		"ok.tsv": {"a b\tx y"}, "ok.de": {"a b"}, "ok.en": {"x y"},
		"header.tsv":  {"de\ten", "a b\tx y"},
		"header2.tsv": {"Source\tTarget", "a b\tx y"},
		"blank.tsv":   {"a b\tx y", "", "c\tz"},
		"notab.tsv":   {"a b\tx y", "c d e"},
		"long.de":     {"a", "b", "c"}, "long.en": {"x", "y"},
		"short.de": {"a"}, "short.en": {"x", "y"},
		"blank.de": {"a", "b"}, "blank.en": {"x", " "},
		"only.de": {"a"},
	})
	at := func(name string) string { return filepath.Join(dir, name) }
	fixed := func(train string) Options {
		return Options{"train": at(train), "dev": at("ok.tsv"), "test": at("ok.tsv"), "src_lang": "de", "tgt_lang": "en"}
	}
	for _, tc := range []struct {
		name  string
		opts  Options
		atNew bool
		want  string
	}{
		{"missing file", fixed("none.tsv"), true, "tasks: tsv: train: no file " + at("none.tsv") + ", nor " + at("none.tsv.de") + " and " + at("none.tsv.en") +
			" (a split is a TSV file, or the prefix of two plain-text files PATH.de and PATH.en)"},
		{"missing file without languages", Options{"train": at("none.tsv"), "dev": at("ok.tsv"), "test": at("ok.tsv")}, true,
			"tasks: tsv: train: stat " + at("none.tsv") + ": no such file or directory"},
		{"one file of a pair", fixed("only"), true, "tasks: tsv: train: stat " + at("only.en") + ": no such file or directory (" + at("only.de") + " is there: a pair needs both files)"},
		{"missing test_align", Options{"train": at("ok.tsv"), "dev": at("ok.tsv"), "test": at("ok.tsv"), "test_align": at("none.gold")}, true,
			"tasks: tsv: test_align: stat " + at("none.gold") + ": no such file or directory"},
		{"header (languages)", fixed("header.tsv"), false, "tasks: tsv: " + at("header.tsv") + `:1: a header line ("de", "en"); the file must hold pairs only: remove it (tail -n +2)`},
		{"header (column names)", fixed("header2.tsv"), false, "tasks: tsv: " + at("header2.tsv") + `:1: a header line ("Source", "Target"); the file must hold pairs only: remove it (tail -n +2)`},
		{"empty line", fixed("blank.tsv"), false, "tasks: tsv: " + at("blank.tsv") + ":2: empty line (a split's file has one pair a line, none empty)"},
		{"tab missing", fixed("notab.tsv"), false, "tasks: tsv: " + at("notab.tsv") + ":2: no tab separating source and target"},
		{"more source lines", fixed("long"), false, "tasks: tsv: " + at("long.de") + ":3: line counts differ: " + at("long.en") + " has 2 lines, " + at("long.de") + " more"},
		{"more target lines", fixed("short"), false, "tasks: tsv: " + at("short.en") + ":2: line counts differ: " + at("short.de") + " has 1 lines, " + at("short.en") + " more"},
		{"empty line in a pair", fixed("blank"), false, "tasks: tsv: " + at("blank.en") + ":2: empty line (a split's files have one sentence a line, none empty)"},
		{"reverse with a pair", Options{"train": at("ok"), "dev": at("ok"), "test": at("ok"), "src_lang": "de", "tgt_lang": "en", "reverse": true}, true,
			`tasks: tsv: reverse: swaps a TSV's columns; train is a pair of plain-text files: name the languages the other way round (src_lang = "en", tgt_lang = "de")`},
		{"a fraction beside train", Options{"train": at("ok.tsv"), "dev": 0.1, "test": at("ok.tsv")}, true,
			"tasks: tsv: dev: must be a path when train is one (fixed splits), got float 0.1"},
		{"path and train", Options{"path": at("ok.tsv"), "train": at("ok.tsv"), "dev": at("ok.tsv"), "test": at("ok.tsv")}, true,
			"tasks: tsv: path and train: give one file split at random (path) or fixed splits (train, dev and test paths), not both"},
		{"test_align with a random split", Options{"path": at("ok.tsv"), "test_align": at("ok.tsv")}, true,
			"tasks: tsv: test_align: needs a fixed test split (train, dev and test paths): with path the test split is drawn at random"},
		{"one language", Options{"path": at("ok.tsv"), "src_lang": "de"}, true, `tasks: tsv: src_lang "de", tgt_lang "": name both languages or neither`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			task, err := New("tsv", tc.opts)
			if tc.atNew {
				if err == nil || err.Error() != tc.want {
					t.Errorf("New: %v\nwant %s", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, err := task.(SizeChecker).CheckSize(context.Background()); err == nil || err.Error() != tc.want {
				t.Errorf("CheckSize: %v\nwant %s", err, tc.want)
			}
			if _, err := task.Load(1); err == nil || err.Error() != tc.want {
				t.Errorf("Load: %v\nwant %s", err, tc.want)
			}
		})
	}
	// one file split at random still skips blank lines, and refuses a header
	if d := load(t, "tsv", Options{"path": at("blank.tsv"), "dev": 0, "test": 0}, 1); d.Text.Pairs() != 2 {
		t.Errorf("%d pairs from blank.tsv, want 2", d.Text.Pairs())
	}
	task, _ := New("tsv", Options{"path": at("header.tsv")})
	if _, err := task.Load(1); err == nil || !strings.Contains(err.Error(), "header.tsv:1: a header line") {
		t.Errorf("a header in one file split at random: %v", err)
	}
}

// zipfCorpus writes a fixed-split corpus whose vocabularies are known by
// construction: source word s<k> (k = 0…ns-1) occurs k+1 times in train,
// target word t<k> (k = 0…nt-1) k+1 times; dev and test hold words of
// their own. Each train line holds one occurrence a side.
func zipfCorpus(t *testing.T, ns, nt int) Options {
	dir := t.TempDir()
	var src, tgt []string
	for k := range ns {
		for range k + 1 {
			src = append(src, fmt.Sprintf("s%d", k))
		}
	}
	for k := range nt {
		for range k + 1 {
			tgt = append(tgt, fmt.Sprintf("t%d", k))
		}
	}
	// pair the sides line by line: the longer list is cut into lines of 2
	n := max(len(src), len(tgt))
	var train []string
	per := func(toks []string, i, lines int) string {
		lo, hi := i*len(toks)/lines, (i+1)*len(toks)/lines
		if lo == hi {
			return "pad"
		}
		return strings.Join(toks[lo:hi], " ")
	}
	lines := (n + 1) / 2
	for i := range lines {
		train = append(train, per(src, i, lines)+"\t"+per(tgt, i, lines))
	}
	writeFiles(t, dir, map[string][]string{
		"train.tsv": train,
		"dev.tsv":   {"dev words here\tmore dev words"},
		"test.tsv":  {"a b c d e f g\tx", "test\ty z"},
	})
	return Options{"train": filepath.Join(dir, "train.tsv"), "dev": filepath.Join(dir, "dev.tsv"), "test": filepath.Join(dir, "test.tsv")}
}

// TestTSVSizeCounts: Size's streaming pass reports the vocabularies Load
// builds, known by construction (zipfCorpus): with min_count m, the words
// seen ≥ m times are s<m-1>…s<ns-1>, ns−m+1 of them (and "pad" where a
// side ran out, counted apart). It also gives the split sizes and the
// longest and mean lengths.
func TestTSVSizeCounts(t *testing.T) {
	const ns, nt = 60, 40 // 1830 and 820 source and target tokens: 915 lines of 2 source tokens
	base := zipfCorpus(t, ns, nt)
	// target: 820 tokens over 915 lines: 95 lines have none and get "pad"
	// (95 times), so the target has 40 words + pad
	for _, tc := range []struct {
		minCount, maxVocab int
		src, tgt           int
	}{
		{1, 0, ns, nt + 1},
		{2, 0, ns - 1, nt - 1 + 1},  // s0, t0 seen once; pad 95 times
		{10, 0, ns - 9, nt - 9 + 1}, // s0…s8 seen < 10 times
		{41, 0, ns - 40, 0 + 1},     // no target word is seen 41 times; pad is
		{96, 0, 0, 0},               // nothing is: s59 59+1 = 60 times, pad 95
		{1, 25, 25, 25},             // max_vocab caps
	} {
		opts := Options{"min_count": tc.minCount, "max_vocab": tc.maxVocab}
		for k, v := range base {
			opts[k] = v
		}
		task, err := New("tsv", opts)
		if err != nil {
			t.Fatal(err)
		}
		s := task.(Sizer).Size()
		if s.SrcVocab != tc.src || s.TgtVocab != tc.tgt {
			t.Errorf("min_count %d, max_vocab %d: Size vocabularies %d, %d; want %d, %d", tc.minCount, tc.maxVocab, s.SrcVocab, s.TgtVocab, tc.src, tc.tgt)
		}
		d, err := task.Load(1)
		if err != nil {
			t.Fatal(err)
		}
		if d.SrcVocab.Len()-4 != s.SrcVocab || d.TgtVocab.Len()-4 != s.TgtVocab {
			t.Errorf("min_count %d: Load built %d, %d ordinary tokens; Size said %d, %d", tc.minCount, d.SrcVocab.Len()-4, d.TgtVocab.Len()-4, s.SrcVocab, s.TgtVocab)
		}
	}
	s := mustNew(t, base).(Sizer).Size()
	// 915 train lines, 1 dev, 2 test; the longest source is test's 7
	// tokens, the longest target dev's 3; mean source (1830 + 3 + 7 + 1) /
	// 918, mean target (915 lines of 1 token or "pad" + 3 + 1 + 2) / 918
	if s.Train != 915 || s.Dev != 1 || s.Test != 2 || s.MaxSrc != 7 || s.MaxTgt != 3 {
		t.Errorf("Size %+v: want 915/1/2 pairs, longest 7 and 3", s)
	}
	if want := float64(1830+3+7+1) / 918; s.MeanSrc != want {
		t.Errorf("mean source %v, want %v", s.MeanSrc, want)
	}
	if want := float64(915+3+1+2) / 918; s.MeanTgt != want {
		t.Errorf("mean target %v, want %v", s.MeanTgt, want)
	}
	// DataBytes: 4 a token, 12 a pair, 68 + its bytes a distinct token
	tokens := (1830 + 3 + 7 + 1) + (915 + 3 + 1 + 2)
	if s.DataBytes < int64(4*tokens+12*918) || s.DataBytes > int64(4*tokens+12*918+(68+4)*200) {
		t.Errorf("DataBytes %d for %d tokens and 918 pairs", s.DataBytes, tokens)
	}
}

func mustNew(t *testing.T, opts Options) Task {
	t.Helper()
	task, err := New("tsv", opts)
	if err != nil {
		t.Fatal(err)
	}
	return task
}

// TestTSVLoadStops: a done context stops Load and CheckSize.
func TestTSVLoadStops(t *testing.T) {
	done, cancel := context.WithCancel(context.Background())
	cancel()
	task := mustNew(t, Options{"path": tinyTSV})
	if _, err := task.(ContextLoader).LoadContext(done, 1); err != context.Canceled {
		t.Errorf("LoadContext: %v, want context.Canceled", err)
	}
	if _, err := task.(SizeChecker).CheckSize(done); err != context.Canceled {
		t.Errorf("CheckSize: %v, want context.Canceled", err)
	}
}

func TestTSVSpaceTokenizer(t *testing.T) {
	got := TSVFormat{Space: true, Lowercase: true}.Tokenize("Der  Hund's, schläft.\u00a0Ja")
	if want := []string{"der", "hund's,", "schläft.", "ja"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
