package captioning

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/attnzoo/attnzoo/internal/registry/registrytest"
	"github.com/attnzoo/attnzoo/source"
	"github.com/attnzoo/attnzoo/tasks"
)

func TestNames(t *testing.T) {
	names := Names()
	if !slices.IsSorted(names) || !slices.Contains(names, "shapes") {
		t.Errorf("Names() = %v, want them sorted, with shapes", names)
	}
	for _, n := range names {
		if info, _ := tasks.InfoOf(n); info.Kind != Kind || (info.Input != source.Images && info.Input != source.Features) {
			t.Errorf("%s: %+v, want a captioning task reading images or features", n, info)
		}
	}
}

func TestRegisterPanics(t *testing.T) {
	f := func(tasks.Options) (Task, error) { return nil, nil }
	registrytest.Panics(t, map[string]func(){
		"nil factory": func() { Register("new-task", source.Images, nil) },
		"empty name":  func() { Register("", source.Images, f) },
		"duplicate":   func() { Register("shapes", source.Images, f) },
	})
	if slices.Contains(Names(), "new-task") {
		t.Error("the task was registered anyway")
	}
}

func TestNewUnknown(t *testing.T) {
	want := `captioning: unknown task "shapez" (have: ` + strings.Join(Names(), ", ") + ")"
	if _, err := New("shapez", nil); err == nil || err.Error() != want {
		t.Errorf("New: got %v, want %q", err, want)
	}
	if _, err := Keys("shapez"); err == nil || err.Error() != want {
		t.Errorf("Keys: got %v, want %q", err, want)
	}
}

func TestKeys(t *testing.T) {
	common := []string{"captions", "dev", "dev_list", "format", "max_len", "max_vocab", "min_count", "test", "test_list", "train_list"}
	tests := map[string][]string{
		"shapes":   {"captions_per_image", "dev", "max_objects", "min_objects", "noise", "size", "test", "train", "unseen"},
		"images":   sorted(append([]string{"crop", "dir", "size", "skip_bad"}, common...)),
		"features": sorted(append([]string{"grid", "ids", "npy"}, common...)),
	}
	registrytest.Keys(t, Keys, tests)
}

func sorted(s []string) []string { slices.Sort(s); return s }

func TestShapesOptionErrors(t *testing.T) {
	tests := []errCase{
		{"unknown key", tasks.Options{"sise": 64},
			`captioning: shapes: unknown key "sise" (have: captions_per_image, dev, max_objects, min_objects, noise, size, test, train, unseen)`},
		{"string for integer", tasks.Options{"size": "64"}, `captioning: shapes: size: want an integer, got string "64"`},
		{"fraction for integer", tasks.Options{"train": 2.5}, `captioning: shapes: train: want an integer, got float 2.5`},
		{"string for list", tasks.Options{"unseen": "red circle"}, `captioning: shapes: unseen: want an array of strings, got string "red circle"`},
		{"numbers in list", tasks.Options{"unseen": []any{int64(1)}}, `captioning: shapes: unseen: want an array of strings, got array [1]`},
		{"small size", tasks.Options{"size": 16}, `captioning: shapes: size: must be in [32, 1024], got 16`},
		{"no objects", tasks.Options{"min_objects": 0}, `captioning: shapes: min_objects: must be >= 1, got 0`},
		{"max below min", tasks.Options{"min_objects": 3, "max_objects": 2}, `captioning: shapes: max_objects: must be >= min_objects 3, got 2`},
		{"too many objects", tasks.Options{"max_objects": 10}, `captioning: shapes: max_objects: must be <= 9 (one object per cell of a 3×3 grid), got 10`},
		{"noise", tasks.Options{"noise": "loud"}, `captioning: shapes: noise: must be "plain", "noisy" or "mixed", got "loud"`},
		{"no train", tasks.Options{"train": 0}, `captioning: shapes: train: must be >= 1, got 0`},
		{"negative dev", tasks.Options{"dev": -1}, `captioning: shapes: dev: must be >= 0, got -1`},
		{"captions", tasks.Options{"captions_per_image": 5}, `captioning: shapes: captions_per_image: must be in [1, 4] (the grammar has 4 forms), got 5`},
		{"unseen colour", tasks.Options{"unseen": []any{"pink circle"}},
			`captioning: shapes: unseen[0]: "pink circle": unknown colour "pink" (have: blue, green, red, yellow)`},
		{"unseen shape", tasks.Options{"unseen": []any{"red star"}},
			`captioning: shapes: unseen[0]: "red star": unknown shape "star" (have: circle, square, triangle)`},
		{"unseen form", tasks.Options{"unseen": []string{"red"}}, `captioning: shapes: unseen[0]: "red": want "colour shape", as "red circle"`},
		{"unseen twice", tasks.Options{"unseen": []any{"red circle", "red  circle"}}, `captioning: shapes: unseen[1]: "red  circle" is listed twice`},
		{"unseen too many", tasks.Options{"max_objects": 1, "unseen": []any{"red circle", "blue square"}},
			`captioning: shapes: unseen: 2 combinations cannot all be in a test image of at most max_objects 1 objects`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New("shapes", tt.opts)
			if err == nil || err.Error() != tt.want {
				t.Errorf("got  %v\nwant %s", err, tt.want)
			}
		})
	}
}

func TestOptionsKeyError(t *testing.T) {
	_, err := New("shapes", tasks.Options{"sise": 1, "nosie": "x", "size": "x"})
	var ke *KeyError
	if !errors.As(err, &ke) || !reflect.DeepEqual(ke.Keys, []string{"nosie", "sise"}) {
		t.Fatalf("got %v, want a *KeyError for nosie and sise", err)
	}
	// Wrong types are reported too, after the unknown keys.
	if !strings.Contains(err.Error(), `unknown keys "nosie", "sise"`) || !strings.Contains(err.Error(), "size: want an integer") {
		t.Errorf("got %v", err)
	}
}

// TestOptionReaderPrefix: the option reader is package tasks' (its types are
// tested there), reporting as "captioning".
func TestOptionReaderPrefix(t *testing.T) {
	r := readOptions("toy", tasks.Options{"k": []any{int64(1), "x"}})
	r.IntPair("k", [2]int{})
	if err := r.Err(); err == nil || err.Error() != `captioning: toy: k: want an integer or an array of two integers, got array [1 x]` {
		t.Errorf("IntPair: got %v", err)
	}
}

// TestShapesSizedAndStoppable: shapes tells its Size before Load (the
// memory estimate reads it), and every task loads with a context.
func TestShapesSizedAndStoppable(t *testing.T) {
	task, err := New("shapes", tasks.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := task.(tasks.Sizer); !ok || s.Size().H != 64 || s.Size().Train != 5000 {
		t.Errorf("shapes: Size %+v (a Sizer: %v), want 5000 training images of 64×64", s, ok)
	}
	loaders := map[string]ContextLoader{"shapes": (*shapesTask)(nil), "images": (*imagesTask)(nil), "features": (*featuresTask)(nil)}
	for _, name := range Names() {
		if loaders[name] == nil {
			t.Errorf("task %s: add it here once it implements ContextLoader", name)
		}
	}
}
