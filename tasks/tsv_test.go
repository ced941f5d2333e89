package tasks

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"
)

func TestTSVTokenize(t *testing.T) {
	word := TSVFormat{Lowercase: true}
	tests := []struct {
		name string
		f    TSVFormat
		in   string
		want []string
	}{
		{"punctuation split", word, "Va !", []string{"va", "!"}},
		{"punctuation attached", word, "Go.", []string{"go", "."}},
		{"no-break space", word, "Va\u00a0!", []string{"va", "!"}},
		{"narrow no-break space", word, "Qui ?\u202fNon\u202f!", []string{"qui", "?", "non", "!"}},
		{"spaces collapse", word, "  I  see\t. ", []string{"i", "see", "."}},
		{"contraction kept", word, "I'm here, aren't you?", []string{"i'm", "here", ",", "aren't", "you", "?"}},
		{"typographic apostrophe", word, "L’homme", []string{"l'homme"}},
		{"hyphen inside word", word, "Peut-être.", []string{"peut-être", "."}},
		{"quotes split", word, "'Hi' - \"no\"", []string{"'", "hi", "'", "-", "\"", "no", "\""}},
		{"german quotes", word, "Tom sagte „Hallo“.", []string{"tom", "sagte", "„", "hallo", "“", "."}},
		{"numbers", word, "3.5 km, 1,000 or 8:15.", []string{"3.5", "km", ",", "1,000", "or", "8", ":", "15", "."}},
		{"unicode lowercase", word, "ÉCOLE Straße ΣΟΦΙΑ", []string{"école", "straße", "σοφια"}},
		{"keep case", TSVFormat{}, "Guten Tag!", []string{"Guten", "Tag", "!"}},
		{"combining mark stays in word", word, "Cafe\u0301!", []string{"cafe\u0301", "!"}},
		{"combining mark after punctuation", word, "a !\u0301", []string{"a", "!\u0301"}},
		{"leading combining mark", word, "\u0301a", []string{"\u0301a"}},
		{"empty", word, " \t ", nil},
		{"chars", TSVFormat{Char: true, Lowercase: true}, "Va  !", []string{"v", "a", "▁", "!"}},
		{"chars keep marks", TSVFormat{Char: true}, "e\u0301t", []string{"e\u0301", "t"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.f.Tokenize(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Tokenize(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseTSV(t *testing.T) {
	in := "\ufeffGo.\tVa !\tCC-BY 2.0 (France) Attribution: tatoeba.org\r\n" +
		"\n" +
		"I'm OK.\tÇa va.\n" +
		"   \n" +
		"Hi.\tSalut !" // no final newline
	tests := []struct {
		name string
		f    TSVFormat
		want [][2]string // space-joined source and target
	}{
		{"words", TSVFormat{Lowercase: true}, [][2]string{{"go .", "va !"}, {"i'm ok .", "ça va ."}, {"hi .", "salut !"}}},
		{"reverse", TSVFormat{Lowercase: true, Reverse: true}, [][2]string{{"va !", "go ."}, {"ça va .", "i'm ok ."}, {"salut !", "hi ."}}},
		{"chars", TSVFormat{Char: true}, [][2]string{{"G o .", "V a ▁ !"}, {"I ' m ▁ O K .", "Ç a ▁ v a ."}, {"H i .", "S a l u t ▁ !"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exs, err := ParseTSV(strings.NewReader(in), "fra.tsv", tt.f)
			if err != nil {
				t.Fatal(err)
			}
			var got [][2]string
			for _, ex := range exs {
				got = append(got, [2]string{strings.Join(ex.Src, " "), strings.Join(ex.Tgt, " ")})
				if ex.Sure != nil || ex.Possible != nil {
					t.Errorf("links in %v", ex)
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestParseTSVErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		f    TSVFormat
		want string
	}{
		{"no tab", "Go.\tVa !\nHi.\tSalut.\nno tab here\n", TSVFormat{},
			"tasks: tsv: data/fra.tsv:3: no tab separating source and target"},
		{"invalid UTF-8", "Go.\tVa !\nHi.\tSal\xffut.\n", TSVFormat{},
			"tasks: tsv: data/fra.tsv:2: invalid UTF-8"},
		{"invalid UTF-8 in an ignored column", "Go.\tVa !\t\xfe\n", TSVFormat{},
			"tasks: tsv: data/fra.tsv:1: invalid UTF-8"},
		{"empty source", "\n  \t Salut.\n", TSVFormat{},
			"tasks: tsv: data/fra.tsv:2: source (column 1) is empty after normalisation"},
		{"empty target", "Hi.\t\u00a0\n", TSVFormat{},
			"tasks: tsv: data/fra.tsv:1: target (column 2) is empty after normalisation"},
		{"empty first column, reversed", "\tSalut.\n", TSVFormat{Reverse: true},
			"tasks: tsv: data/fra.tsv:1: target (column 1) is empty after normalisation"},
		{"empty second column, reversed", "Hi.\t\tnote\n", TSVFormat{Reverse: true},
			"tasks: tsv: data/fra.tsv:1: source (column 2) is empty after normalisation"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseTSV(strings.NewReader(tt.in), "data/fra.tsv", tt.f)
			if err == nil || err.Error() != tt.want {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

// writeTSV writes lines to a file in a temporary folder and returns its path.
func writeTSV(t *testing.T, lines ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "pairs.tsv")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// sources returns the distinct joined sources of exs.
func sources(exs []Example) map[string]bool {
	m := map[string]bool{}
	for _, ex := range exs {
		m[strings.Join(ex.Src, " ")] = true
	}
	return m
}

func TestTSVTiny(t *testing.T) {
	// tiny.tsv has 328 pairs and 314 distinct sources; dev and test, 0.1
	// each, are round(31.4) = 31 sources, which leaves 252 for train.
	d := load(t, "tsv", Options{"path": tinyTSV}, 1)
	if n := len(d.Examples("train")) + len(d.Examples("dev")) + len(d.Examples("test")); n != 328 {
		t.Errorf("%d pairs, want 328", n)
	}
	train, dev, test := sources(d.Examples("train")), sources(d.Examples("dev")), sources(d.Examples("test"))
	if len(train) != 252 || len(dev) != 31 || len(test) != 31 {
		t.Errorf("distinct sources train/dev/test %d/%d/%d, want 252/31/31", len(train), len(dev), len(test))
	}
	for s := range train {
		if dev[s] || test[s] {
			t.Errorf("source %q is in train and in dev or test", s)
		}
	}
	for s := range dev {
		if test[s] {
			t.Errorf("source %q is in dev and test", s)
		}
	}
	if d.Aligned {
		t.Error("Aligned is true")
	}
	// The extra columns are ignored: no token of the note reaches the data.
	for _, tok := range []string{"cc0", "attnzoo", "corpus"} {
		if d.SrcVocab.ID(tok) != UnkID || d.TgtVocab.ID(tok) != UnkID {
			t.Errorf("token %q from an ignored column is in a vocabulary", tok)
		}
	}
	// "I love you." has three translations, all in one split.
	var n int
	var where []string
	for split, exs := range splits(d) {
		for _, ex := range exs {
			if strings.Join(ex.Src, " ") == "i love you ." {
				n++
				where = append(where, split)
			}
		}
	}
	if n != 3 || where[0] != where[1] || where[1] != where[2] {
		t.Errorf(`"i love you ." found %d times, in %v; want 3 times in one split`, n, where)
	}
}

func TestTSVOptions(t *testing.T) {
	path := writeTSV(t,
		"One two three four.\tEins zwei drei vier.", // 5 tokens each side
		"Big dog.\tGroßer Hund.",                    // 3
		"Hi.\tHallo.",                               // 2
		"Hi.\tGuten Tag.",                           // 2 and 3
		"Go!\tGeh!",                                 // 2
	)
	tests := []struct {
		name        string
		opts        Options
		pairs       int
		src0, tgtOf string // a source token that must be in SrcVocab, a target token that must be in TgtVocab
	}{
		{"max_len 3 drops the long pair", Options{"max_len": 3, "dev": 0, "test": 0}, 4, "dog", "hund"},
		{"max_len 0 keeps all", Options{"dev": 0, "test": 0}, 5, "four", "vier"},
		{"reverse", Options{"reverse": true, "dev": 0, "test": 0}, 5, "hund", "dog"},
		{"keep case", Options{"lowercase": false, "dev": 0, "test": 0}, 5, "Big", "Großer"},
		{"chars", Options{"tokenizer": "char", "dev": 0, "test": 0}, 5, "▁", "ß"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts["path"] = path
			d := load(t, "tsv", tt.opts, 1)
			if len(d.Examples("train")) != tt.pairs {
				t.Errorf("%d training pairs, want %d", len(d.Examples("train")), tt.pairs)
			}
			if d.SrcVocab.ID(tt.src0) == UnkID || d.TgtVocab.ID(tt.tgtOf) == UnkID {
				t.Errorf("%q not in SrcVocab %v or %q not in TgtVocab %v", tt.src0, d.SrcVocab.Tokens(), tt.tgtOf, d.TgtVocab.Tokens())
			}
		})
	}
}

func TestTSVSplitAndVocab(t *testing.T) {
	// 10 distinct sources; test 0.3 and dev 0.2 take 3 and 2 of them.
	var lines []string
	for _, w := range strings.Fields("a b c d e f g h i j") {
		lines = append(lines, w+" x x\t"+w+" y")
	}
	path := writeTSV(t, lines...)
	d := load(t, "tsv", Options{"path": path, "dev": 0.2, "test": 0.3}, 5)
	if len(d.Examples("train")) != 5 || len(d.Examples("dev")) != 2 || len(d.Examples("test")) != 3 {
		t.Errorf("sizes %d/%d/%d, want 5/2/3", len(d.Examples("train")), len(d.Examples("dev")), len(d.Examples("test")))
	}
	// Vocabularies come from train: x (5 times) first, then its 5 letters.
	if got := d.SrcVocab.Tokens(); len(got) != 10 || got[4] != "x" {
		t.Errorf("SrcVocab %v, want the specials, x and 5 letters", got)
	}
	// min_count 2 keeps only x; max_vocab 1 keeps x (the most frequent) and drops the rest.
	for _, opts := range []Options{{"min_count": 2}, {"max_vocab": 1}} {
		opts["path"] = path
		d := load(t, "tsv", opts, 5)
		if got := d.SrcVocab.Tokens(); !reflect.DeepEqual(got, []string{"<pad>", "<unk>", "<s>", "</s>", "x"}) {
			t.Errorf("%v: SrcVocab %v", opts, got)
		}
	}
	// One source: test 0.6 takes round(0.6) = 1 of them, leaving none.
	one := writeTSV(t, "a\tb")
	task, err := New("tsv", Options{"path": one, "test": 0.6})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := task.Load(1); err == nil || !strings.Contains(err.Error(), "leave none to train on") {
		t.Errorf("Load of one pair with dev and test: %v", err)
	}
}

func TestTSVOptionErrors(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"no path", Options{}, `tasks: tsv: missing required key "path" (or train, dev and test: fixed splits)`},
		{"bad tokenizer", Options{"path": tinyTSV, "tokenizer": "bpe"}, `tasks: tsv: tokenizer: must be "word", "space" or "char", got "bpe"`},
		{"dev out of range", Options{"path": tinyTSV, "dev": 1}, "tasks: tsv: dev: must be a fraction in [0, 1), got 1"},
		{"dev + test", Options{"path": tinyTSV, "dev": 0.5, "test": 0.5}, "tasks: tsv: dev 0.5 + test 0.5: must leave something to train on (sum < 1)"},
		{"min_count", Options{"path": tinyTSV, "min_count": 0}, "tasks: tsv: min_count: must be >= 1, got 0"},
		{"negative max_len", Options{"path": tinyTSV, "max_len": -1}, "tasks: tsv: max_len: must be >= 0 (0: no limit), got -1"},
		{"a folder", Options{"path": "../testdata/tasks"}, "tasks: tsv: path: ../testdata/tasks is a directory, not a file"},
		{"no such file", Options{"path": "../testdata/tasks/none.tsv"}, "tasks: tsv: path: stat ../testdata/tasks/none.tsv: no such file or directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := newErr(t, "tsv", tt.opts); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestParseTSVReadError(t *testing.T) {
	r := io.MultiReader(strings.NewReader("a\tb\n"), iotest.ErrReader(errors.New("disk on fire")))
	_, err := ParseTSV(r, "x.tsv", TSVFormat{})
	if want := "tasks: tsv: x.tsv:2: disk on fire"; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
}

func TestTSVLoadParseError(t *testing.T) {
	path := writeTSV(t, "Hi.\tHallo.", "oops")
	task, err := New("tsv", Options{"path": path})
	if err != nil {
		t.Fatal(err)
	}
	_, err = task.Load(1)
	want := "tasks: tsv: " + path + ":2: no tab separating source and target"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
}

var lineNumber = regexp.MustCompile(`^tasks: tsv: fuzz\.tsv:[1-9][0-9]*: `)

func FuzzParseTSV(f *testing.F) {
	f.Add([]byte("Go.\tVa !\tCC-BY 2.0 (France) Attribution: tatoeba.org #2877272 (CM) & #1158250 (Wittydev)\n"), false, true, false)
	f.Add([]byte("\ufeffHi.\tSalut !\r\nI'm OK.\tÇa va.\n\nRun!\tCours !\n"), false, true, true)
	f.Add([]byte("Tom sagte „Hallo“.\tTom said \"hello\".\n"), true, false, false)
	f.Add([]byte("e\u0301\t\u0301\n"), true, true, false)
	f.Add([]byte("no tab\n"), false, true, false)
	f.Add([]byte("a\t\u00a0\u202f\n"), false, true, false)
	f.Add([]byte("a\tb\xff\n"), false, false, false)
	f.Add([]byte("\t\t\t\n\n"), true, true, true)
	f.Add([]byte("l’homme-grenouille\t3.5 km, 1,000'\n"), false, true, false)
	f.Fuzz(func(t *testing.T, data []byte, char, lower, reverse bool) {
		exs, err := ParseTSV(bytes.NewReader(data), "fuzz.tsv", TSVFormat{Char: char, Lowercase: lower, Reverse: reverse})
		if err != nil {
			if !lineNumber.MatchString(err.Error()) {
				t.Fatalf("error %q does not name the file and a line", err)
			}
			return
		}
		for i, ex := range exs {
			if len(ex.Src) == 0 || len(ex.Tgt) == 0 {
				t.Fatalf("example %d has an empty side: %q -> %q", i, ex.Src, ex.Tgt)
			}
			for _, tok := range append(append([]string(nil), ex.Src...), ex.Tgt...) {
				if tok == "" || !utf8.ValidString(tok) {
					t.Fatalf("example %d has a bad token %q", i, tok)
				}
				if strings.ContainsAny(tok, " \t\r\n") {
					t.Fatalf("example %d has a token with white space %q", i, tok)
				}
			}
		}
	})
}

// TestTSVSideVocabLimits: src_min_count, tgt_min_count, src_max_vocab and
// tgt_max_vocab set one side's limit, min_count and max_vocab both. On 10
// lines "w x x<TAB>w y y y" (w = a…j, all in train): the source has x 20
// times and each letter once, the target y 30 times and each letter once;
// ties go in lexicographic order. Size counts what Load builds.
func TestTSVSideVocabLimits(t *testing.T) {
	var lines []string
	letters := strings.Fields("a b c d e f g h i j")
	for _, w := range letters {
		lines = append(lines, w+" x x\t"+w+" y y y")
	}
	path := writeTSV(t, lines...)
	held := writeTSV(t, "a x\ta y")
	specials := []string{"<pad>", "<unk>", "<s>", "</s>"}
	vocab := func(first string, letters ...string) []string {
		return append(append(slices.Clone(specials), first), letters...)
	}
	for _, c := range []struct {
		opts     Options
		src, tgt []string
	}{
		{Options{"src_min_count": 2}, vocab("x"), vocab("y", letters...)},
		{Options{"tgt_max_vocab": 3}, vocab("x", letters...), vocab("y", "a", "b")},
		{Options{"min_count": 2, "tgt_min_count": 1}, vocab("x"), vocab("y", letters...)},
		{Options{"max_vocab": 1, "src_max_vocab": 0}, vocab("x", letters...), vocab("y")},
		{Options{"src_max_vocab": 2, "tgt_min_count": 31}, vocab("x", "a"), specials},
	} {
		// fixed splits: the vocabularies come from train alone, and dev and
		// test (one pair each) may not be empty
		c.opts["train"], c.opts["dev"], c.opts["test"] = path, held, held
		task := mustNew(t, c.opts)
		d, err := task.Load(1)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.SrcVocab.Tokens(); !reflect.DeepEqual(got, c.src) {
			t.Errorf("%v: SrcVocab %v, want %v", c.opts, got, c.src)
		}
		if got := d.TgtVocab.Tokens(); !reflect.DeepEqual(got, c.tgt) {
			t.Errorf("%v: TgtVocab %v, want %v", c.opts, got, c.tgt)
		}
		if s := task.(Sizer).Size(); s.SrcVocab != len(c.src)-4 || s.TgtVocab != len(c.tgt)-4 {
			t.Errorf("%v: Size vocabularies %d, %d; want %d, %d", c.opts, s.SrcVocab, s.TgtVocab, len(c.src)-4, len(c.tgt)-4)
		}
	}
	for _, c := range []struct {
		opts Options
		want string
	}{
		{Options{"src_min_count": 0}, "tasks: tsv: src_min_count: must be >= 1, got 0"},
		{Options{"tgt_max_vocab": -2}, "tasks: tsv: tgt_max_vocab: must be >= 0 (0: no limit), got -2"},
		{Options{"tgt_min_count": "2"}, "tgt_min_count"},
	} {
		c.opts["path"] = path
		if got := newErr(t, "tsv", c.opts); !strings.Contains(got, c.want) {
			t.Errorf("%v: %q, want %q", c.opts, got, c.want)
		}
	}
}
