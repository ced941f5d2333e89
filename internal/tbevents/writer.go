package tbevents

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// A Writer appends events to one event file. Each event goes to the
// operating system in one write as soon as it is made (no buffer in the
// process), so a run killed at any point leaves every event it wrote but
// at most the one cut short, which TensorBoard's reader skips. Its methods
// may be called from several goroutines.
type Writer struct {
	mu   sync.Mutex
	f    *os.File
	path string
	now  func() time.Time
	err  error // the first write error: later calls return it
}

// Create starts a new event file in dir (made if missing) named
// events.out.tfevents.<unix seconds>.<hostname>, as TensorFlow names
// them (".2", ".3", … appended when a file of that name exists), and
// writes its first event, the file version.
func Create(dir string) (*Writer, error) { return create(dir, time.Now) }

func create(dir string, now func() time.Time) (*Writer, error) {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, fmt.Errorf("tbevents: %w", err)
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "localhost"
	}
	base := filepath.Join(dir, "events.out.tfevents."+strconv.FormatInt(now().Unix(), 10)+"."+host)
	for i := 1; ; i++ {
		path := base
		if i > 1 {
			path += "." + strconv.Itoa(i)
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("tbevents: %w", err)
		}
		w := &Writer{f: f, path: path, now: now}
		if err := w.write(fileVersionEvent(w.wall())); err != nil {
			f.Close()
			return nil, err
		}
		return w, nil
	}
}

// Path is the event file's path.
func (w *Writer) Path() string { return w.path }

func (w *Writer) wall() float64 { return float64(w.now().UnixNano()) / 1e9 }

// write frames one event as a record and writes it.
func (w *Writer) write(event []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if w.f == nil {
		return fmt.Errorf("tbevents: %s: write after Close", w.path)
	}
	if _, err := w.f.Write(appendRecord(nil, event)); err != nil {
		w.err = fmt.Errorf("tbevents: %w", err)
		return w.err
	}
	return nil
}

// Scalar writes one scalar at step, as a float32 simple_value (what
// PyTorch's add_scalar writes; TensorBoard shows it under Scalars).
func (w *Writer) Scalar(tag string, step int64, v float64) error {
	return w.write(summaryEvent(w.wall(), step, scalarValue(tag, float32(v))))
}

// Image writes img at step as a PNG (TensorBoard shows it under Images).
func (w *Writer) Image(tag string, step int64, img image.Image) error {
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return fmt.Errorf("tbevents: image %s: %w", tag, err)
	}
	b := img.Bounds()
	return w.write(summaryEvent(w.wall(), step, imageValue(tag, b.Dy(), b.Dx(), colorspace(img), buf.Bytes())))
}

// colorspace is the channels png.Encode writes for img, as Summary.Image
// counts them: 1 gray, 3 RGB, 4 RGBA.
func colorspace(img image.Image) int {
	switch img.(type) {
	case *image.Gray, *image.Gray16:
		return 1
	}
	if o, ok := img.(interface{ Opaque() bool }); ok && o.Opaque() {
		return 3
	}
	return 4
}

// Restart marks that the run goes on from step after a restart (a resumed
// checkpoint): TensorBoard then hides the events at step and later that
// the earlier process wrote before it stopped.
func (w *Writer) Restart(step int64) error {
	return w.write(sessionStartEvent(w.wall(), step))
}

// Close closes the file; it returns the first write error, if any.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return w.err
	}
	err := w.f.Close()
	w.f = nil
	if w.err != nil {
		return w.err
	}
	if err != nil {
		return fmt.Errorf("tbevents: %w", err)
	}
	return nil
}
