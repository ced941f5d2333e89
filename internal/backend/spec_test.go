package backend_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/backend/cpu"
	"github.com/attnzoo/attnzoo/internal/backend/minimal"
)

var opened []string // the rests and workers "spec-test" was opened with

func init() {
	backend.RegisterDriver("spec-test", backend.Driver{
		Open: func(rest string, worker int) (backend.Backend, error) {
			opened = append(opened, rest+"/"+string(rune('0'+worker)))
			return minimal.New("spec-test"), nil
		},
		Parse: func(rest string) error {
			if rest != "" && rest != "1" {
				return errors.New("want spec-test or spec-test:1")
			}
			return nil
		},
		Find:  func(rest string) error { return errors.New("not here") },
		List:  func() backend.Listing { return backend.Listing{Text: "spec-test:1\n", JSON: []string{"spec-test:1"}} },
		Forms: []string{"spec-test", "spec-test:1"},
	})
	backend.Refuse("spec-refused", `"spec-refused" is refused: use "spec-test"`)
}

// ParseSpec asks the named driver; its forms make the list of choices;
// OpenSpec opens "cpu" as the engine's own host machine (nil) and any other
// with the sweep worker; Float64, Find and Listings are the driver's.
func TestSpecRegistry(t *testing.T) {
	_ = cpu.New() // "cpu" registered
	if got := backend.Choices(); !slices.Contains(got, "cpu") || !slices.Contains(got, "spec-test:1") || slices.Contains(got, "spec-refused") {
		t.Errorf("Choices() = %v", got)
	}
	for in, want := range map[string]string{
		"spec-test:2":  `"spec-test:2": want spec-test or spec-test:1`,
		"spec-refused": `"spec-refused" is refused: use "spec-test" (have: cpu, `,
		"nope":         `unknown "nope" (have: cpu, `,
		"cpu:1":        `unknown "cpu:1": cpu takes no device number`,
	} {
		if _, err := backend.ParseSpec(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseSpec(%q) = %v, want an error containing %q", in, err, want)
		}
	}
	s, err := backend.ParseSpec("spec-test:1")
	if err != nil || s.Name != "spec-test" || s.Rest != "1" || s.String() != "spec-test:1" || s.Float64() {
		t.Fatalf("ParseSpec(spec-test:1) = %+v, %v", s, err)
	}
	if err := s.Find(); err == nil || err.Error() != "not here" {
		t.Errorf("Find = %v, want the driver's", err)
	}
	s.Worker = 3
	if be, err := backend.OpenSpec(s); err != nil || be.Name() != "spec-test" || opened[len(opened)-1] != "1/3" {
		t.Errorf("OpenSpec = %v, %v; opened %v", be, err, opened)
	}
	c, err := backend.ParseSpec("cpu")
	if err != nil || !c.Float64() || c.Find() != nil {
		t.Errorf("ParseSpec(cpu) = %+v, %v; want float64 and found", c, err)
	}
	if be, err := backend.OpenSpec(c); be != nil || err != nil {
		t.Errorf("OpenSpec(cpu) = %v, %v; want nil: the engine's host machine", be, err)
	}
	names, ls := backend.Listings()
	if i := slices.Index(names, "spec-test"); i < 0 || ls[i].Text != "spec-test:1\n" {
		t.Errorf("Listings() = %v, %v", names, ls)
	}
}
