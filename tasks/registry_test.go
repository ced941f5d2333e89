package tasks

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/attnzoo/attnzoo/internal/registry/registrytest"
	"github.com/attnzoo/attnzoo/metrics"
	"github.com/attnzoo/attnzoo/source"
)

var tinyTSV = "../testdata/tasks/tiny.tsv"

// smallOptions load every registered task quickly.
var smallOptions = map[string]Options{
	"copy":    {"train": 200, "dev": 20, "test": 20},
	"reverse": {"train": 200, "dev": 20, "test": 20},
	"sort":    {"train": 200, "dev": 20, "test": 20},
	"date":    {"train": 200, "dev": 20, "test": 20},
	"reorder": {"train": 200, "dev": 20, "test": 20},
	"synlang": {"vocab": 100, "train": 200, "dev": 20, "test": 20},
	"tsv":     {"path": tinyTSV},
}

// TestNames: the names are sorted, each a translation task reading tokens
// with small options here for the registry-wide tests (a new task adds its
// entry to smallOptions, nothing else).
func TestNames(t *testing.T) {
	names := Names()
	if !slices.IsSorted(names) || len(names) == 0 {
		t.Errorf("Names() = %v, want them sorted", names)
	}
	for _, n := range names {
		if info, _ := InfoOf(n); info != (Info{Kind: Translation, Input: source.Tokens}) {
			t.Errorf("%s: %+v, want a translation task reading tokens", n, info)
		}
		if _, ok := smallOptions[n]; !ok {
			t.Errorf("%s has no small options in smallOptions", n)
		}
	}
}

func TestRegisterPanics(t *testing.T) {
	f := func(Options) (Task, error) { return nil, nil }
	registrytest.Panics(t, map[string]func(){
		"nil factory": func() { Register("new-task", nil) },
		"empty name":  func() { Register("", f) },
		"duplicate":   func() { Register("copy", f) },
	})
	if slices.Contains(Names(), "new-task") {
		t.Error("the task was registered anyway")
	}
}

func TestNewUnknown(t *testing.T) {
	want := `tasks: unknown task "revrse" (have: ` + strings.Join(Names(), ", ") + ")"
	if got := newErr(t, "revrse", nil); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if _, err := Keys("revrse"); err == nil || err.Error() != want {
		t.Errorf("Keys: got %v, want %q", err, want)
	}
}

func TestKeys(t *testing.T) {
	seq := []string{"dev", "max_len", "min_len", "test", "test_max_len", "test_min_len", "train", "vocab"}
	tests := map[string][]string{
		"copy":    seq,
		"reverse": seq,
		"sort":    seq,
		"date":    {"dev", "max_year", "min_year", "test", "train"},
		"reorder": {"adverb", "dev", "max_adj", "pp", "test", "test_max_adj", "train"},
		"synlang": {"adverb", "clause", "definite", "dev", "front", "max_adj", "max_len", "past", "phrasal",
			"plural", "pp", "swap", "test", "test_max_len", "train", "vocab", "zipf"},
		"tsv": {"dev", "lowercase", "max_len", "max_vocab", "min_count", "path", "reverse", "src_bpe_codes", "src_lang", "src_max_vocab",
			"src_min_count", "src_spm_model", "src_tokenizer", "test", "test_align", "test_align_base", "tgt_bpe_codes", "tgt_lang",
			"tgt_max_vocab", "tgt_min_count", "tgt_spm_model", "tgt_tokenizer", "tokenizer", "train"},
	}
	registrytest.Keys(t, Keys, tests)
}

// TestEveryTask checks what every registered task promises.
func TestEveryTask(t *testing.T) {
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			opts, ok := smallOptions[name]
			if !ok {
				t.Fatalf("no small options for %q", name)
			}
			task, err := New(name, opts)
			if err != nil {
				t.Fatal(err)
			}
			if task.Name() != name {
				t.Errorf("Name() = %q", task.Name())
			}
			if _, ok := task.(Tokenizer); !ok {
				t.Error("does not implement Tokenizer")
			}
			d1, err := task.Load(7)
			if err != nil {
				t.Fatal(err)
			}
			d2, _ := task.Load(7)
			d3, _ := task.Load(8)
			if !reflect.DeepEqual(d1, d2) {
				t.Error("Load(7) twice gave different data")
			}
			if reflect.DeepEqual(d1.Examples("train"), d3.Examples("train")) {
				t.Error("Load(7) and Load(8) gave the same training data")
			}
			if d1.Aligned != (name != "tsv") {
				t.Errorf("Aligned = %v", d1.Aligned)
			}
			for split, exs := range splits(d1) {
				for i, ex := range exs {
					checkExample(t, split, i, ex, d1.Aligned)
				}
			}
			for _, ex := range d1.Examples("train") {
				for _, tok := range ex.Src {
					if d1.SrcVocab.ID(tok) == UnkID {
						t.Fatalf("training source token %q is not in SrcVocab", tok)
					}
				}
				for _, tok := range ex.Tgt {
					if d1.TgtVocab.ID(tok) == UnkID {
						t.Fatalf("training target token %q is not in TgtVocab", tok)
					}
				}
			}

			// Unknown keys are *KeyErrors listing exactly Keys.
			bad := Options{"no_such_key": 1}
			for k, v := range opts {
				bad[k] = v
			}
			_, err = New(name, bad)
			var ke *KeyError
			if !errors.As(err, &ke) {
				t.Fatalf("New with an unknown key: %v, want a *KeyError", err)
			}
			keys, _ := Keys(name)
			if !reflect.DeepEqual(ke.Keys, []string{"no_such_key"}) || !reflect.DeepEqual(ke.Have, keys) {
				t.Errorf("KeyError %+v, want Keys [no_such_key] and Have %v", ke, keys)
			}
		})
	}
}

func checkExample(t *testing.T, split string, i int, ex Example, aligned bool) {
	t.Helper()
	if len(ex.Src) == 0 || len(ex.Tgt) == 0 {
		t.Fatalf("%s[%d]: empty side: %q -> %q", split, i, ex.Src, ex.Tgt)
	}
	for _, tok := range append(slices.Clone(ex.Src), ex.Tgt...) {
		if tok == "" || strings.ContainsAny(tok, " \t\n") {
			t.Fatalf("%s[%d]: bad token %q", split, i, tok)
		}
	}
	if !aligned {
		if ex.Sure != nil || ex.Possible != nil {
			t.Fatalf("%s[%d]: links in a task without gold alignments", split, i)
		}
		return
	}
	if ex.Sure == nil {
		t.Fatalf("%s[%d]: no sure links", split, i)
	}
	inRange := func(l metrics.Link) bool {
		return l.Src >= 0 && l.Src < len(ex.Src) && l.Tgt >= 0 && l.Tgt < len(ex.Tgt)
	}
	for _, l := range ex.Sure {
		if !inRange(l) {
			t.Fatalf("%s[%d]: sure link %v out of range for %d×%d", split, i, l, len(ex.Src), len(ex.Tgt))
		}
	}
	if ex.Possible != nil {
		for _, l := range ex.Possible {
			if !inRange(l) {
				t.Fatalf("%s[%d]: possible link %v out of range", split, i, l)
			}
		}
		for _, l := range ex.Sure {
			if !slices.Contains(ex.Possible, l) {
				t.Fatalf("%s[%d]: sure link %v is not possible", split, i, l)
			}
		}
	}
	for _, links := range [][]metrics.Link{ex.Sure, ex.Possible} {
		sorted := slices.Clone(links)
		sortLinks(sorted)
		if !slices.Equal(sorted, links) {
			t.Fatalf("%s[%d]: links not sorted by target then source: %v", split, i, links)
		}
	}
}
