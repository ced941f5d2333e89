package tasks

import (
	"errors"
	"reflect"
	"testing"
)

func TestOptionReaderTypes(t *testing.T) {
	// Each row reads one key from Options{"k": in} and wants out.
	tests := []struct {
		name string
		read func(r *optionReader) any
		in   any
		want any
	}{
		{"int from int64 (TOML)", func(r *optionReader) any { return r.Int("k", 1) }, int64(12), 12},
		{"int from int", func(r *optionReader) any { return r.Int("k", 1) }, 12, 12},
		{"int from integral float", func(r *optionReader) any { return r.Int("k", 1) }, 1e4, 10000},
		{"int default", func(r *optionReader) any { return r.Int("other", 1) }, nil, 1},
		{"float from float64", func(r *optionReader) any { return r.Float("k", 0.5) }, 0.25, 0.25},
		{"float from int64", func(r *optionReader) any { return r.Float("k", 0.5) }, int64(0), 0.0},
		{"string", func(r *optionReader) any { return r.String("k", "word") }, "char", "char"},
		{"strings from []any", func(r *optionReader) any { return r.Strings("k", nil) }, []any{"a", "b"}, []string{"a", "b"}},
		{"pair from one integer", func(r *optionReader) any { return r.IntPair("k", [2]int{}) }, int64(7), [2]int{7, 7}},
		{"pair from array", func(r *optionReader) any { return r.IntPair("k", [2]int{}) }, []any{int64(2), int64(3)}, [2]int{2, 3}},
		{"bool", func(r *optionReader) any { return r.Bool("k", true) }, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := readOptions("toy", Options{"k": tt.in})
			got := tt.read(r)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
			if tt.in != nil {
				if err := r.Err(); err != nil {
					t.Errorf("Err() = %v", err)
				}
			}
		})
	}
}

func TestOptionErrors(t *testing.T) {
	tests := []struct {
		name string
		task string
		opts Options
		want string
	}{
		{"unknown key", "reverse", Options{"max_lne": int64(12)},
			`tasks: reverse: unknown key "max_lne" (have: dev, max_len, min_len, test, test_max_len, test_min_len, train, vocab)`},
		{"unknown keys", "date", Options{"min_len": int64(3), "max_len": int64(5)},
			`tasks: date: unknown keys "max_len", "min_len" (have: dev, max_year, min_year, test, train)`},
		{"string for integer", "reverse", Options{"max_len": "10"},
			`tasks: reverse: max_len: want an integer, got string "10"`},
		{"fraction for integer", "copy", Options{"train": 2.5},
			`tasks: copy: train: want an integer, got float 2.5`},
		{"array for integer", "date", Options{"min_year": []any{int64(1950)}},
			`tasks: date: min_year: want an integer, got array [1950]`},
		{"integer for boolean", "tsv", Options{"path": tinyTSV, "lowercase": int64(1)},
			`tasks: tsv: lowercase: want a boolean, got integer 1`},
		{"integer for string", "tsv", Options{"path": tinyTSV, "tokenizer": int64(3)},
			`tasks: tsv: tokenizer: want a string, got integer 3`},
		{"float too large for an integer", "copy", Options{"train": 1e300},
			`tasks: copy: train: want an integer, got float 1e+300`},
		{"boolean for number", "reorder", Options{"pp": true},
			`tasks: reorder: pp: want a number, got boolean true`},
		{"min_len > max_len", "reverse", Options{"min_len": int64(12), "max_len": int64(10)},
			"tasks: reverse: min_len 12 > max_len 10"},
		{"min_len > test_max_len", "copy", Options{"min_len": int64(4), "test_max_len": int64(3)},
			"tasks: copy: min_len 4 > test_max_len 3"},
		{"min_len < 1", "copy", Options{"min_len": int64(0)},
			"tasks: copy: min_len: must be >= 1, got 0"},
		{"negative size", "copy", Options{"dev": int64(-5)},
			"tasks: copy: dev: must be >= 0, got -5"},
		{"empty train", "reorder", Options{"train": int64(0)},
			"tasks: reorder: train: must be >= 1, got 0"},
		{"sort vocab < 2", "sort", Options{"vocab": int64(1)},
			"tasks: sort: vocab: must be >= 2, got 1"},
		{"two problems", "copy", Options{"dev": int64(-1), "test": int64(-2)},
			"tasks: copy: dev: must be >= 0, got -1\ntasks: copy: test: must be >= 0, got -2"},
		{"unknown key and impossible value", "copy", Options{"lenght": int64(3), "vocab": int64(0)},
			`tasks: copy: unknown key "lenght" (have: dev, max_len, min_len, test, test_max_len, test_min_len, train, vocab)` +
				"\ntasks: copy: vocab: must be >= 2, got 0"},
		// A value of the wrong type is replaced by its default, so range
		// checks are not reported: max_len 2 against min_len 3 would be.
		{"type error hides range checks", "copy", Options{"min_len": "3", "max_len": int64(2)},
			`tasks: copy: min_len: want an integer, got string "3"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := newErr(t, tt.task, tt.opts); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestKeyErrorIsFound(t *testing.T) {
	_, err := New("copy", Options{"a": 1, "vocab": 0})
	var ke *KeyError
	if !errors.As(err, &ke) || !reflect.DeepEqual(ke.Keys, []string{"a"}) {
		t.Fatalf("errors.As(%v) found %+v", err, ke)
	}
}

func TestGoNumbersAccepted(t *testing.T) {
	// Go ints and integral floats work as well as TOML's int64.
	d := load(t, "reverse", Options{"min_len": 5, "max_len": 5.0, "train": int32(3), "dev": uint8(1), "test": int64(1)}, 1)
	if len(d.Train) != 3 || len(d.Train[0].Src) != 5 {
		t.Errorf("got %d training examples of length %d, want 3 of length 5", len(d.Train), len(d.Train[0].Src))
	}
}
