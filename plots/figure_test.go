package plots

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSave(t *testing.T) {
	f, err := AlignmentHeatmap(smallAlignment("dot"), HeatmapOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "figures") // created by Save
	for _, tc := range []struct {
		opt  SaveOptions
		want []string
	}{
		{SaveOptions{DPI: 50}, []string{"a.png", "a.svg"}},
		{SaveOptions{DPI: 50, PDF: true}, []string{"a.png", "a.svg", "a.pdf"}},
	} {
		paths, err := Save(filepath.Join(dir, "a"), f, tc.opt)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range paths {
			got = append(got, filepath.Base(p))
		}
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("wrote %v, want %v", got, tc.want)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "a.pdf a.png a.svg" { // no temporary files left
		t.Errorf("folder holds %v, want a.pdf a.png a.svg", names)
	}
	b, err := os.ReadFile(filepath.Join(dir, "a.png"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(bytes.NewReader(b)); err != nil {
		t.Errorf("a.png: %v", err)
	}
	svg, _ := os.ReadFile(filepath.Join(dir, "a.svg"))
	if !bytes.Contains(svg, []byte("&lt;end&gt;")) {
		t.Error("a.svg lacks the escaped token <end>")
	}
}

func TestSaveErrors(t *testing.T) {
	f, _ := AlignmentHeatmap(smallAlignment("dot"), HeatmapOptions{})
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	for _, tc := range []struct {
		name string
		base string
		fig  *Figure
		want string
	}{
		{"empty base", "", f, "empty base path"},
		{"nil figure", filepath.Join(t.TempDir(), "x"), nil, "nil figure"},
		{"folder is a file", filepath.Join(file, "x"), f, "plots: save"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Save(tc.base, tc.fig, SaveOptions{}); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want one containing %q", err, tc.want)
			}
		})
	}
	var buf bytes.Buffer
	if err := f.Render(&buf, "gif", 0); err == nil || !strings.Contains(err.Error(), `unknown format "gif"`) {
		t.Errorf("Render gif: error = %v", err)
	}
}

func TestFixPDFDates(t *testing.T) {
	in := "/Producer (x)\n/CreationDate (D:20251122061100)\n/ModDate (D:20251122061101)\n"
	want := "/Producer (x)\n/CreationDate (D:20000101000000)\n/ModDate (D:20000101000000)\n"
	if got := string(fixPDFDates([]byte(in))); got != want {
		t.Errorf("fixPDFDates = %q, want %q", got, want)
	}
}
