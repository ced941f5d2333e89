package opencl

import (
	"fmt"
	"strings"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// A driver may report what went wrong in a context through the callback
// given to clCreateContext (pfn_notify: errinfo, private_info, cb,
// user_data), on any thread and at any time: NVIDIA's names the fault
// that a later call only reports as CL_OUT_OF_RESOURCES. purego never
// frees a callback, so the process registers one, and user_data is the
// context's number in notes, where its messages wait for the context's
// next error (Context.explain).
var (
	notifyOnce sync.Once
	notifyFn   uintptr

	notes = struct {
		sync.Mutex
		next uintptr
		msgs map[uintptr][]string
	}{msgs: map[uintptr][]string{}}
)

// maxNotes is how many of a context's messages are kept (the last ones).
const maxNotes = 8

// notifyCallback is the process's one error callback, made on first use.
func notifyCallback() uintptr {
	notifyOnce.Do(func() { notifyFn = purego.NewCallback(notify) })
	return notifyFn
}

// notify is the callback: it files errinfo under the context user names.
func notify(errinfo *byte, _ unsafe.Pointer, _ uintptr, user uintptr) {
	msg := "(no message)"
	if errinfo != nil {
		msg = cString(errinfo)
	}
	notes.Lock()
	defer notes.Unlock()
	ms, ok := notes.msgs[user]
	if !ok {
		return // a context already closed
	}
	if len(ms) == maxNotes {
		ms = ms[1:]
	}
	notes.msgs[user] = append(ms, strings.TrimSpace(msg))
}

// cString is the NUL-terminated string at p.
func cString(p *byte) string {
	var b []byte
	for q := unsafe.Pointer(p); *(*byte)(q) != 0 && len(b) < 4096; q = unsafe.Add(q, 1) {
		b = append(b, *(*byte)(q))
	}
	return string(b)
}

// newNotes opens a context's place in notes and returns its number.
func newNotes() uintptr {
	notes.Lock()
	defer notes.Unlock()
	notes.next++
	notes.msgs[notes.next] = nil
	return notes.next
}

// dropNotes closes a context's place in notes.
func dropNotes(id uintptr) {
	notes.Lock()
	delete(notes.msgs, id)
	notes.Unlock()
}

// DriverMessages are the messages the driver sent to the context's error
// callback, oldest first (the last few).
func (c *Context) DriverMessages() []string {
	notes.Lock()
	defer notes.Unlock()
	return append([]string(nil), notes.msgs[c.notes]...)
}

// explain adds to a failed call's error what the driver has said to the
// context's error callback; nil stays nil.
func (c *Context) explain(err error) error {
	if err == nil {
		return nil
	}
	if ms := c.DriverMessages(); len(ms) > 0 {
		return fmt.Errorf("%w; the OpenCL driver reported: %s", err, strings.Join(ms, "; "))
	}
	return err
}
