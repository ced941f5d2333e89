package plots

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// goldenFigures are drawn from the hand-made fixtures; their SVGs are
// checked byte for byte against testdata/NAME.golden.svg.
var goldenFigures = []struct {
	name string
	fig  func() (*Figure, error)
}{
	{"heatmap", func() (*Figure, error) {
		return AlignmentHeatmap(smallAlignment("dot"), HeatmapOptions{})
	}},
	{"grid", func() (*Figure, error) {
		b := smallAlignment("concat")
		b.Weights[0] = []float64{0.1, 0.1, 0.4, 0.4}
		return ScorerGrid([]Alignment{smallAlignment("dot"), b}, GridOptions{HeatmapOptions: HeatmapOptions{AutoMax: true}, Title: "example 1"})
	}},
	{"curves", func() (*Figure, error) {
		return LearningCurves(smallSeries(), CurveOptions{YLabel: "loss", Band: SD})
	}},
	{"bars", func() (*Figure, error) {
		return Bars(smallBars(), BarOptions{YLabel: "accuracy (%)", ShowSeeds: true})
	}},
	{"overlay", func() (*Figure, error) {
		return CaptionOverlay(smallImage(), []string{"a", "bird"},
			[][][]float64{oneHot(3, 4, 0, 0), oneHot(3, 4, 2, 3)}, OverlayOptions{Width: SingleColumn})
	}},
}

// renderTwice builds a figure and renders it twice in format, so a test can
// check that the two renderings are the same bytes.
func renderTwice(t *testing.T, fig func() (*Figure, error), format Format) (first, second bytes.Buffer) {
	t.Helper()
	f, err := fig()
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Render(&first, format, 0); err != nil {
		t.Fatal(err)
	}
	if err := f.Render(&second, format, 0); err != nil {
		t.Fatal(err)
	}
	return first, second
}

func TestGoldenSVG(t *testing.T) {
	for _, g := range goldenFigures {
		t.Run(g.name, func(t *testing.T) {
			first, second := renderTwice(t, g.fig, SVG)
			if !bytes.Equal(first.Bytes(), second.Bytes()) {
				t.Fatal("two renderings of the same figure differ")
			}
			path := filepath.Join("testdata", g.name+".golden.svg")
			if *update {
				if err := os.WriteFile(path, first.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./plots -update to create it)", err)
			}
			if !bytes.Equal(first.Bytes(), want) {
				got := filepath.Join(t.TempDir(), g.name+".svg")
				os.WriteFile(got, first.Bytes(), 0o644)
				t.Errorf("SVG differs from %s (got %s); if the change is intended, run go test ./plots -update", path, got)
			}
		})
	}
}

func TestPDFDeterministic(t *testing.T) {
	for _, g := range goldenFigures {
		t.Run(g.name, func(t *testing.T) {
			first, second := renderTwice(t, g.fig, PDF)
			if !bytes.HasPrefix(first.Bytes(), []byte("%PDF-")) {
				t.Fatalf("output starts %q, want %%PDF-", first.Bytes()[:min(8, first.Len())])
			}
			if !bytes.Equal(first.Bytes(), second.Bytes()) {
				t.Error("two renderings of the same figure differ")
			}
			if !bytes.Contains(first.Bytes(), []byte("/CreationDate (D:20000101000000)")) {
				t.Error("creation date not fixed")
			}
		})
	}
}
