package tasks

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// KeyError reports option keys a task does not accept.
type KeyError struct {
	Pkg  string   // the package reporting it ("tasks", "captioning"); "" means tasks
	Task string   // the task's name
	Keys []string // the unknown keys, sorted
	Have []string // the keys the task accepts, sorted
}

func (e *KeyError) Error() string {
	have := "none"
	if len(e.Have) > 0 {
		have = strings.Join(e.Have, ", ")
	}
	quoted := make([]string, len(e.Keys))
	for i, k := range e.Keys {
		quoted[i] = strconv.Quote(k)
	}
	noun := "key"
	if len(e.Keys) > 1 {
		noun = "keys"
	}
	pkg := e.Pkg
	if pkg == "" {
		pkg = "tasks"
	}
	return fmt.Sprintf("%s: %s: unknown %s %s (have: %s)", pkg, e.Task, noun, strings.Join(quoted, ", "), have)
}

// OptionReader reads a task's options with defaults and collects every
// problem, so that a factory reads its keys in a few lines:
//
//	r := readOptions("shapes", opts)
//	n := r.Int("size", 64)
//	r.Check(n >= 16, "size: must be >= 16, got %d", n)
//	if err := r.Err(); err != nil {
//		return nil, err
//	}
//
// A factory must read every key it accepts unconditionally, before calling
// Err: the keys read are the keys accepted (Keys relies on it).
type OptionReader struct {
	pkg    string
	task   string
	opts   Options
	known  map[string]bool
	errs   []error // missing keys and wrong types
	checks []error // impossible values
}

// NewOptionReader reads a task's options; pkg prefixes its error messages
// ("tasks", "captioning"). Other task packages use it so every task reads
// and reports its options the same way.
func NewOptionReader(pkg, task string, opts Options) *OptionReader {
	return &OptionReader{pkg: pkg, task: task, opts: opts, known: make(map[string]bool)}
}

// optionReader is this package's name for OptionReader.
type optionReader = OptionReader

func readOptions(task string, opts Options) *optionReader {
	return NewOptionReader("tasks", task, opts)
}

func (r *optionReader) get(key string) (any, bool) {
	r.known[key] = true
	v, ok := r.opts[key]
	return v, ok
}

// Has reports whether key was given (and marks it known).
func (r *optionReader) Has(key string) bool {
	_, ok := r.get(key)
	return ok
}

func (r *optionReader) wrongType(key, want string, v any) {
	r.errs = append(r.errs, fmt.Errorf("%s: %s: %s: want %s, got %s", r.pkg, r.task, key, want, describe(v)))
}

// read reads key with as, which converts a value of the type wanted
// (want names it for the error); a value it cannot convert is an error
// naming the key and what it got, and def stands.
func read[T any](r *optionReader, key string, def T, want string, as func(any) (T, bool)) T {
	v, ok := r.get(key)
	if !ok {
		return def
	}
	x, ok := as(v)
	if !ok {
		r.wrongType(key, want, v)
		return def
	}
	return x
}

// is is read's conversion for a value of type T as given.
func is[T any](v any) (T, bool) {
	x, ok := v.(T)
	return x, ok
}

// Int reads an integer; a float with an integral value (1e4) is accepted.
func (r *optionReader) Int(key string, def int) int { return read(r, key, def, "an integer", asInt) }

// Float reads a number; integers are accepted.
func (r *optionReader) Float(key string, def float64) float64 {
	return read(r, key, def, "a number", asFloat)
}

// String reads a string.
func (r *optionReader) String(key, def string) string {
	return read(r, key, def, "a string", is[string])
}

// RequiredString reads a string that must be present and not empty.
func (r *optionReader) RequiredString(key string) string {
	if _, ok := r.get(key); !ok {
		r.errs = append(r.errs, fmt.Errorf("%s: %s: missing required key %q", r.pkg, r.task, key))
		return ""
	}
	s := r.String(key, "")
	_, isString := r.opts[key].(string)
	r.Check(!isString || s != "", "%s: must not be empty", key)
	return s
}

// Bool reads a boolean.
func (r *optionReader) Bool(key string, def bool) bool {
	return read(r, key, def, "a boolean", is[bool])
}

// Strings reads an array of strings.
func (r *optionReader) Strings(key string, def []string) []string {
	return read(r, key, def, "an array of strings", asStrings)
}

// IntPair reads either one integer n, meaning (n, n), or an array of two
// integers.
func (r *optionReader) IntPair(key string, def [2]int) [2]int {
	return read(r, key, def, "an integer or an array of two integers", asIntPair)
}

// Check records an impossible value when ok is false. The message should
// name the key(s) and the values. Checks are reported only when every value
// had the right type, since a value of the wrong type was replaced by its default.
func (r *optionReader) Check(ok bool, format string, args ...any) {
	if !ok {
		r.checks = append(r.checks, fmt.Errorf("%s: %s: "+format, append([]any{r.pkg, r.task}, args...)...))
	}
}

// Err returns every problem found, joined: unknown keys first (as one
// *KeyError), then missing keys and wrong types, then impossible values.
func (r *optionReader) Err() error {
	var errs []error
	var unknown []string
	for k := range r.opts {
		if !r.known[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		have := make([]string, 0, len(r.known))
		for k := range r.known {
			have = append(have, k)
		}
		sort.Strings(have)
		errs = append(errs, &KeyError{Pkg: r.pkg, Task: r.task, Keys: unknown, Have: have})
	}
	errs = append(errs, r.errs...)
	if len(r.errs) == 0 {
		errs = append(errs, r.checks...)
	}
	return errors.Join(errs...)
}

// asInt converts any Go integer, or a float with an integral value, to int.
func asInt(v any) (int, bool) {
	switch x := reflect.ValueOf(v); x.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if n := x.Int(); n >= math.MinInt && n <= math.MaxInt {
			return int(n), true
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if n := x.Uint(); n <= math.MaxInt {
			return int(n), true
		}
	case reflect.Float32, reflect.Float64:
		if f := x.Float(); f == math.Trunc(f) && math.Abs(f) <= 1<<53 {
			return int(f), true
		}
	}
	return 0, false
}

// describe names a decoded TOML value's type, as the user wrote it, and the value.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "nothing"
	case string:
		return "string " + strconv.Quote(x)
	case bool:
		return fmt.Sprintf("boolean %v", x)
	case float32, float64:
		return fmt.Sprintf("float %v", x)
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return fmt.Sprintf("integer %v", x)
	case []any:
		return fmt.Sprintf("array %v", x)
	case map[string]any:
		return "table"
	}
	return fmt.Sprintf("%T %v", v, v)
}

// asFloat converts any Go number to float64.
func asFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	}
	n, ok := asInt(v)
	return float64(n), ok
}

// asStrings converts an array of strings ([]string or TOML's []any).
func asStrings(v any) ([]string, bool) {
	switch x := v.(type) {
	case []string:
		return append([]string(nil), x...), true
	case []any:
		out := make([]string, len(x))
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, false
			}
			out[i] = s
		}
		return out, true
	}
	return nil, false
}

// asIntPair converts one integer n to (n, n), or an array of two integers.
func asIntPair(v any) ([2]int, bool) {
	if n, ok := asInt(v); ok {
		return [2]int{n, n}, true
	}
	var elems []any
	switch x := v.(type) {
	case []any:
		elems = x
	case []int:
		for _, e := range x {
			elems = append(elems, e)
		}
	case []int64:
		for _, e := range x {
			elems = append(elems, e)
		}
	}
	if len(elems) == 2 {
		a, okA := asInt(elems[0])
		b, okB := asInt(elems[1])
		return [2]int{a, b}, okA && okB
	}
	return [2]int{}, false
}
