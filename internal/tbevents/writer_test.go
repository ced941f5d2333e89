package tbevents

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/attnzoo/attnzoo/internal/tbevents/tbtest"
)

// clock returns a fixed time, then one second later at each call.
func clock(start int64) func() time.Time {
	t := start
	return func() time.Time { t++; return time.Unix(t-1, 500_000_000) }
}

// TestWriterIndependentReader writes scalars, images and a restart, and
// reads them back with the Python reader (package tbtest): tags, steps and
// values as written, each scalar as the float32 nearest to the value given.
func TestWriterIndependentReader(t *testing.T) {
	dir := t.TempDir()
	w, err := create(dir, clock(1700000000))
	if err != nil {
		t.Fatal(err)
	}
	rgb := image.NewRGBA(image.Rect(0, 0, 5, 3)) // opaque: PNG RGB, colorspace 3
	for i := range rgb.Pix {
		rgb.Pix[i] = 0xFF
	}
	rgba := image.NewNRGBA(image.Rect(0, 0, 2, 4)) // transparent: RGBA, 4
	rgba.Set(1, 1, color.NRGBA{R: 200, A: 100})
	gray := image.NewGray(image.Rect(0, 0, 7, 1)) // gray, 1
	steps := []error{
		w.Scalar("train/loss", 10, 2.5),
		w.Scalar("train/lr", 10, 0.001),
		w.Scalar("dev/exact_match", 20, 0),
		w.Restart(15),
		w.Scalar("train/loss", 3_000_000_000, -1e-3),
		w.Image("attention/rgb", 20, rgb),
		w.Image("attention/rgba", 20, rgba),
		w.Image("attention/gray", 21, gray),
	}
	for i, err := range steps {
		if err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files := tbtest.Read(t, w.Path())
	ev := files[0].Events
	if files[0].Tail != 0 {
		t.Errorf("%d bytes left after the last record", files[0].Tail)
	}
	type want struct {
		step   int64
		what   string // file_version, session_log, scalar tag or image tag
		value  float64
		hw, cs [2]int
	}
	wants := []want{
		{0, "brain.Event:2", 0, [2]int{}, [2]int{}},
		{10, "train/loss", 2.5, [2]int{}, [2]int{}},
		{10, "train/lr", float64(float32(0.001)), [2]int{}, [2]int{}},
		{20, "dev/exact_match", 0, [2]int{}, [2]int{}},
		{15, "START", 0, [2]int{}, [2]int{}},
		{3_000_000_000, "train/loss", float64(float32(-1e-3)), [2]int{}, [2]int{}},
		{20, "attention/rgb", 0, [2]int{3, 5}, [2]int{3}},
		{20, "attention/rgba", 0, [2]int{4, 2}, [2]int{4}},
		{21, "attention/gray", 0, [2]int{1, 7}, [2]int{1}},
	}
	if len(ev) != len(wants) {
		t.Fatalf("read %d events, want %d: %+v", len(ev), len(wants), ev)
	}
	for i, wt := range wants {
		e := ev[i]
		// the clock's first reading (1700000000.5) names the file; the
		// events get 1700000001.5, then one second more each
		if wall := 1700000001.5 + float64(i); e.WallTime != wall {
			t.Errorf("event %d: wall_time %v, want %v", i, e.WallTime, wall)
		}
		if e.Step != wt.step {
			t.Errorf("event %d: step %d, want %d", i, e.Step, wt.step)
		}
		switch {
		case i == 0:
			if e.FileVersion != wt.what {
				t.Errorf("first event: file_version %q, want %q", e.FileVersion, wt.what)
			}
		case wt.what == "START":
			if e.SessionLog != "START" {
				t.Errorf("event %d: session_log %q, want START", i, e.SessionLog)
			}
		default:
			if len(e.Summary) != 1 || e.Summary[0].Tag != wt.what {
				t.Fatalf("event %d: summary %+v, want one value tagged %s", i, e.Summary, wt.what)
			}
			v := e.Summary[0]
			if wt.hw == [2]int{} {
				if v.SimpleValue == nil || *v.SimpleValue != wt.value {
					t.Errorf("event %d (%s): simple_value %v, want %v", i, wt.what, v.SimpleValue, wt.value)
				}
				continue
			}
			if v.Image == nil || v.Image.Height != wt.hw[0] || v.Image.Width != wt.hw[1] || v.Image.Colorspace != wt.cs[0] {
				t.Errorf("event %d (%s): image %+v, want height %d width %d colorspace %d", i, wt.what, v.Image, wt.hw[0], wt.hw[1], wt.cs[0])
			}
		}
	}
}

// TestFileName checks TensorFlow's naming and that a second file started
// in the same second gets a name of its own.
func TestFileName(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tb") // made by create
	host, _ := os.Hostname()
	var paths []string
	for range 3 {
		w, err := create(dir, func() time.Time { return time.Unix(1234567890, 0) })
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, filepath.Base(w.Path()))
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	base := "events.out.tfevents.1234567890." + host
	want := []string{base, base + ".2", base + ".3"}
	if fmt.Sprint(paths) != fmt.Sprint(want) {
		t.Errorf("files %v, want %v", paths, want)
	}
	w, err := create(dir, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	if err := w.Scalar("x", 1, 1); err == nil || !strings.Contains(err.Error(), "after Close") {
		t.Errorf("Scalar after Close: %v, want an error saying so", err)
	}
}

const killEnv = "TBEVENTS_KILLED_WRITER_DIR"

// TestKilledWriterHelper is the process TestKilledWriter kills: it writes
// 5 scalars, says so and waits.
func TestKilledWriterHelper(t *testing.T) {
	dir := os.Getenv(killEnv)
	if dir == "" {
		t.Skip("run by TestKilledWriter")
	}
	w, err := Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	for s := 1; s <= 5; s++ {
		if err := w.Scalar("loss", int64(s), float64(s)/4); err != nil {
			t.Fatal(err)
		}
	}
	fmt.Println("written")
	time.Sleep(time.Minute)
}

// TestKilledWriter kills a process (SIGKILL: no deferred code, no Close)
// that wrote 6 events, and finds all 6 in its file.
func TestKilledWriter(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledWriterHelper$", "-test.v")
	cmd.Env = append(os.Environ(), killEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	for sc.Scan() && sc.Text() != "written" {
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	paths, _ := filepath.Glob(filepath.Join(dir, "events.out.tfevents.*"))
	if len(paths) != 1 {
		t.Fatalf("event files %v, want 1", paths)
	}
	data, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for len(data) >= 16 { // a record: 8 + 4 + len + 4 bytes
		l := int(binary.LittleEndian.Uint64(data))
		if len(data) < 16+l || maskedCRC(data[12:12+l]) != binary.LittleEndian.Uint32(data[12+l:]) {
			break
		}
		data, n = data[16+l:], n+1
	}
	if n != 6 || len(data) != 0 {
		t.Fatalf("%d whole records and %d bytes more, want 6 records (file version + 5 scalars) and nothing more", n, len(data))
	}
	files := tbtest.Read(t, paths[0])
	ev := files[0].Events
	for s := 1; s <= 5; s++ {
		if v := ev[s].Summary[0]; ev[s].Step != int64(s) || v.Tag != "loss" || *v.SimpleValue != float64(s)/4 {
			t.Errorf("event %d: step %d %s = %v, want step %d loss = %v", s, ev[s].Step, v.Tag, *v.SimpleValue, s, float64(s)/4)
		}
	}
}
