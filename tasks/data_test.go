package tasks

import (
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/attnzoo/attnzoo/metrics"
)

// load builds a task and loads it with seed, failing the test on an error.
func load(t *testing.T, name string, opts Options, seed int64) *Data {
	t.Helper()
	task, err := New(name, opts)
	if err != nil {
		t.Fatalf("New(%q, %v): %v", name, opts, err)
	}
	d, err := task.Load(seed)
	if err != nil {
		t.Fatalf("%s.Load(%d): %v", name, seed, err)
	}
	return d
}

// newErr returns New's error message, failing the test if there is none.
func newErr(t *testing.T, name string, opts Options) string {
	t.Helper()
	_, err := New(name, opts)
	if err == nil {
		t.Fatalf("New(%q, %v): no error", name, opts)
	}
	return err.Error()
}

func splits(d *Data) map[string][]Example {
	return map[string][]Example{"train": d.Examples("train"), "dev": d.Examples("dev"), "test": d.Examples("test")}
}

// isPermutation reports whether links pair each of n source and n target
// positions exactly once.
func isPermutation(links []metrics.Link, n int) bool {
	if len(links) != n {
		return false
	}
	src, tgt := make([]bool, n), make([]bool, n)
	for _, l := range links {
		if l.Src < 0 || l.Src >= n || l.Tgt < 0 || l.Tgt >= n || src[l.Src] || tgt[l.Tgt] {
			return false
		}
		src[l.Src], tgt[l.Tgt] = true, true
	}
	return true
}

func TestGenerateDedupe(t *testing.T) {
	// vocab 10, lengths 3..4: 10^3 + 10^4 = 11000 sources, far more than
	// twice the 700 examples, so dev and test avoid train and each other.
	d := load(t, "copy", Options{"min_len": 3, "max_len": 4, "train": 500, "dev": 100, "test": 100}, 1)
	seen := make(map[string]bool)
	for _, ex := range d.Train {
		seen[sourceKey(ex.Src)] = true
	}
	for _, split := range []string{"dev", "test"} {
		for i, ex := range splits(d)[split] {
			k := sourceKey(ex.Src)
			if seen[k] {
				t.Fatalf("%s[%d] %v also occurs in train or earlier held-out data", split, i, ex.Src)
			}
			seen[k] = true
		}
	}
}

func TestGenerateSmallSpace(t *testing.T) {
	// vocab 2, length 3: 8 sources for 60 examples, so no dedupe; the
	// splits still have their sizes and Load ends.
	d := load(t, "copy", Options{"vocab": 2, "min_len": 3, "max_len": 3, "train": 40, "dev": 10, "test": 10}, 1)
	if len(d.Train) != 40 || len(d.Dev) != 10 || len(d.Test) != 10 {
		t.Fatalf("sizes %d/%d/%d, want 40/10/10", len(d.Train), len(d.Dev), len(d.Test))
	}
}

func TestGenerateGivesUp(t *testing.T) {
	same := func(*rand.Rand, bool) Example { return Example{Src: []string{"a"}, Tgt: []string{"a"}} }
	_, err := generate(context.Background(), "toy", 1, sizes{train: 1, dev: 1}, true, same)
	want := "tasks: toy: could not draw 1 dev examples unlike the training ones (got 0); make the task larger or the splits smaller"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
}

func TestSplitStreams(t *testing.T) {
	// Each split has its own stream: a larger train leaves the test split
	// alone where no test source collides with the new training examples.
	small := load(t, "reverse", Options{"min_len": 8, "max_len": 8, "train": 10, "dev": 5, "test": 5}, 3)
	large := load(t, "reverse", Options{"min_len": 8, "max_len": 8, "train": 20, "dev": 5, "test": 5}, 3)
	if !reflect.DeepEqual(small.Train, large.Train[:10]) {
		t.Error("the first 10 training examples changed with the train size")
	}
	if !reflect.DeepEqual(small.Test, large.Test) {
		t.Error("the test split changed with the train size")
	}
}

func TestSortLinks(t *testing.T) {
	links := []metrics.Link{{Src: 2, Tgt: 1}, {Src: 0, Tgt: 1}, {Src: 5, Tgt: 0}}
	sortLinks(links)
	want := []metrics.Link{{Src: 5, Tgt: 0}, {Src: 0, Tgt: 1}, {Src: 2, Tgt: 1}}
	if !reflect.DeepEqual(links, want) {
		t.Errorf("got %v, want %v", links, want)
	}
}

func pharaoh(links []metrics.Link) string {
	var b strings.Builder
	for i, l := range links {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strings.Join(symbols([]int{l.Src, l.Tgt}), "-"))
	}
	return b.String()
}

// checkRendered checks a rendered example's source and target words and its
// sure links in Pharaoh form.
func checkRendered(t *testing.T, ex Example, src, tgt, sure string) {
	t.Helper()
	if got := strings.Join(ex.Src, " "); got != src {
		t.Errorf("source %q\nwant   %q", got, src)
	}
	if got := strings.Join(ex.Tgt, " "); got != tgt {
		t.Errorf("target %q\nwant   %q", got, tgt)
	}
	if got := pharaoh(ex.Sure); got != sure {
		t.Errorf("sure %s\nwant %s", got, sure)
	}
}

// TestLoadContextStops: a done context stops generation, vocabulary
// building and the tsv reader with the context's error, and an open one
// gives the same data as Load.
func TestLoadContextStops(t *testing.T) {
	done, cancel := context.WithCancel(context.Background())
	cancel()
	for _, name := range []string{"copy", "reverse", "sort", "date", "reorder", "synlang"} {
		task, err := New(name, Options{"train": 5000})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := LoadContext(done, task, 1); err != context.Canceled {
			t.Errorf("%s: LoadContext with a done context: %v, want context.Canceled", name, err)
		}
		a, _ := task.Load(1)
		b, err := LoadContext(context.Background(), task, 1)
		if err != nil || !reflect.DeepEqual(a, b) {
			t.Errorf("%s: LoadContext differs from Load (%v)", name, err)
		}
	}
	tsv, err := New("tsv", Options{"path": "../testdata/tasks/tiny.tsv"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LoadContext(done, tsv, 1); !errors.Is(err, context.Canceled) {
		t.Errorf("tsv: LoadContext with a done context: %v, want context.Canceled", err)
	}
	if _, err := BuildVocabContext(done, [][]string{{"a"}}, 1, 0); err != context.Canceled {
		t.Errorf("BuildVocabContext with a done context: %v", err)
	}
}

// TestEveryTaskSizedAndStoppable: every registered task tells its Size
// before Load (the memory estimate reads it) and loads with a context.
func TestEveryTaskSizedAndStoppable(t *testing.T) {
	for _, name := range Names() {
		opts := Options{}
		if name == "tsv" {
			opts["path"] = "../testdata/tasks/tiny.tsv"
		}
		task, err := New(name, opts)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, ok := task.(Sizer); !ok {
			t.Errorf("%s is not a Sizer", name)
		}
		if _, ok := task.(ContextLoader); !ok {
			t.Errorf("%s is not a ContextLoader", name)
		}
	}
}

// loadOnly is a task with Load but no LoadContext.
type loadOnly struct{ d *Data }

func (loadOnly) Name() string                { return "load-only" }
func (l loadOnly) Load(int64) (*Data, error) { return l.d, nil }

// TestLoadContextWithoutContextLoader: a task without LoadContext loads in
// full; LoadContext then gives its data under an open context and the
// context's error (and no data) under a done one.
func TestLoadContextWithoutContextLoader(t *testing.T) {
	want := &Data{}
	if d, err := LoadContext(context.Background(), loadOnly{want}, 1); d != want || err != nil {
		t.Errorf("open context: %p, %v; want %p, nil", d, err, want)
	}
	done, cancel := context.WithCancel(context.Background())
	cancel()
	if d, err := LoadContext(done, loadOnly{want}, 1); d != nil || err != context.Canceled {
		t.Errorf("done context: %p, %v; want nil, context.Canceled", d, err)
	}
}
