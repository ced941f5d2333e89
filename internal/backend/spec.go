package backend

import (
	"fmt"
	"strings"

	"github.com/attnzoo/attnzoo/internal/registry"
)

// Driver is what a backend's package registers (RegisterDriver, from its
// init): how a device specification naming it opens it, and what the
// checks before a run and `attnzoo devices` learn of it. Only Open is
// required.
type Driver struct {
	// Open opens the backend for one run from the rest of a specification
	// (after "NAME:"; "" for the bare name), for sweep worker worker (0
	// outside a sweep: a name may spread workers over devices, as "gpu"
	// does).
	Open func(rest string, worker int) (Backend, error)
	// Parse checks the rest without looking for the device; its error
	// says which forms the name takes. Nil: the bare name only.
	Parse func(rest string) error
	// Find reports whether the device is there to train on, without
	// opening it (an error saying what it found instead, and how to get
	// a driver). Nil: it always is.
	Find func(rest string) error
	// List describes the devices a specification can name, for `attnzoo
	// devices`. Nil: none to list.
	List func() Listing
	// Forms are the specification's forms, for messages and `attnzoo
	// list` ("opencl:P:D"). Nil: the bare name.
	Forms []string
	// Float64 reports whether the backend trains float64 models (the cpu:
	// a device's graphs are float32).
	Float64 bool
}

// Listing is a driver's devices, for `attnzoo devices`.
type Listing struct {
	Text string // lines, each ending in a newline
	JSON any    // for --json, under the driver's name
	Err  error  // why it lists none (no platform, no library)
}

var drivers = registry.New[Driver]("backend")

// refused are names that are no backend, each with why: a name a user
// may try (OpenCL's package refuses "cuda", pointing to "gpu").
var refused = registry.New[string]("backend")

// RegisterDriver makes a backend available by name. It panics if the name
// is empty or taken, or Open is nil.
func RegisterDriver(name string, d Driver) {
	if d.Open == nil {
		panic("backend: RegisterDriver(" + name + ") with no Open")
	}
	drivers.Register(name, d)
}

// Refuse makes a specification naming name, where no backend has that
// name, an error saying why.
func Refuse(name, why string) { refused.Register(name, why) }

// Names lists the registered backends, sorted.
func Names() []string { return drivers.Names() }

// Choices are the specifications' forms of every registered backend, in
// the order of Names: "cpu", "gpu", "gpu:N", "opencl:P:D", …
func Choices() []string {
	var out []string
	for _, n := range Names() {
		d, _ := drivers.Get(n)
		if len(d.Forms) == 0 {
			out = append(out, n)
		}
		out = append(out, d.Forms...)
	}
	return out
}

// Listings are the registered backends' devices, by name, for those with
// a List.
func Listings() (names []string, ls []Listing) {
	for _, n := range Names() {
		if d, _ := drivers.Get(n); d.List != nil {
			names, ls = append(names, n), append(ls, d.List())
		}
	}
	return names, ls
}

// Spec is a device choice: the device key of an experiment file and the
// --device flag, "NAME" or "NAME:REST", NAME a registered backend.
type Spec struct {
	Name string // the backend
	Rest string // after "NAME:"; "" for the bare name
	// Worker is the sweep worker that opens the device (0 outside a
	// sweep). Not part of the choice as written.
	Worker int
}

// ParseSpec parses a device choice: the backend must be registered and
// take the rest (Driver.Parse). It does not look for the device (Find).
func ParseSpec(s string) (Spec, error) {
	name, rest, colon := strings.Cut(s, ":")
	d, ok := drivers.Get(name)
	if !ok {
		have := strings.Join(Choices(), ", ")
		if why, ok := refused.Get(name); ok {
			return Spec{}, fmt.Errorf("%s (have: %s)", why, have)
		}
		return Spec{}, fmt.Errorf("unknown %q (have: %s)", s, have)
	}
	switch {
	case d.Parse != nil:
		if err := d.Parse(rest); err != nil {
			return Spec{}, fmt.Errorf("%q: %w", s, err)
		}
	case colon:
		return Spec{}, fmt.Errorf("unknown %q: %s takes no device number (have: %s)", s, name, strings.Join(Choices(), ", "))
	}
	return Spec{Name: name, Rest: rest}, nil
}

// String is the choice as written.
func (s Spec) String() string {
	if s.Rest == "" {
		return s.Name
	}
	return s.Name + ":" + s.Rest
}

func (s Spec) driver() Driver { d, _ := drivers.Get(s.Name); return d }

// Float64 reports whether the backend trains float64 models.
func (s Spec) Float64() bool { return s.driver().Float64 }

// Find reports whether the device is there to train on (Driver.Find).
func (s Spec) Find() error {
	if f := s.driver().Find; f != nil {
		return f(s.Rest)
	}
	return nil
}

// OpenSpec opens the backend s names for one run: nil for "cpu" (the
// engine's own host machine, each arena with its own cpu backend), else
// the registered backend's Open. Close it when the run ends.
func OpenSpec(s Spec) (Backend, error) {
	if s.Name == "cpu" && s.Rest == "" {
		return nil, nil
	}
	d, ok := drivers.Get(s.Name)
	if !ok {
		return nil, fmt.Errorf("backend: unknown backend %q (known: %s)", s.Name, strings.Join(Names(), ", "))
	}
	return d.Open(s.Rest, s.Worker)
}
