package plots

import (
	"image"
	"image/color"
	"math"
	"os"
	"testing"

	"gonum.org/v1/plot/palette"
)

func bahdanau() Alignment {
	src := []string{"The", "agreement", "on", "the", "European", "Economic", "Area", "was", "signed", "in", "August", "1992", ".", "<end>"}
	tgt := []string{"L'", "accord", "sur", "la", "zone", "économique", "européenne", "a", "été", "signé", "en", "août", "1992", ".", "<end>"}
	align := []int{0, 1, 2, 3, 6, 5, 4, 7, 7, 8, 9, 10, 11, 12, 13}
	w := make([][]float64, len(tgt))
	for i := range tgt {
		w[i] = make([]float64, len(src))
		var s float64
		for j := range src {
			d := float64(j - align[i])
			w[i][j] = math.Exp(-d * d * 1.5)
			s += w[i][j]
		}
		for j := range src {
			w[i][j] /= s
		}
	}
	var gold [][2]int
	for i, j := range align {
		gold = append(gold, [2]int{j, i})
	}
	return Alignment{Src: src, Tgt: tgt, Weights: w, Gold: gold, Title: "dot"}
}

func TestPreview(t *testing.T) {
	if os.Getenv("PREVIEW") == "" {
		t.Skip()
	}
	a := bahdanau()
	f, err := AlignmentHeatmap(a, HeatmapOptions{})
	if err != nil {
		t.Fatal(err)
	}
	Save("/tmp/prev/heat", f, SaveOptions{PDF: true, DPI: 200})
	f, _ = AlignmentHeatmap(a, HeatmapOptions{Palette: palette.Heat(256, 1)})
	Save("/tmp/prev/heat2", f, SaveOptions{DPI: 200})
	var ps []Alignment
	for k, n := range []string{"dot", "general", "concat", "scaled-dot", "location"} {
		b := bahdanau()
		b.Title = n
		for i := range b.Weights {
			for j := range b.Weights[i] {
				b.Weights[i][j] = math.Pow(b.Weights[i][j], 1/float64(k+1))
			}
		}
		ps = append(ps, b)
	}
	f, err = ScorerGrid(ps, GridOptions{Title: "reverse, example 3"})
	if err != nil {
		t.Fatal(err)
	}
	Save("/tmp/prev/grid", f, SaveOptions{DPI: 200})
	var ss []Series
	for k, n := range []string{"dot", "general", "concat", "scaled-dot"} {
		s := Series{Label: n}
		for seed := 0; seed < 3; seed++ {
			var r Run
			for st := 0; st <= 2000; st += 100 {
				r.Steps = append(r.Steps, st)
				r.Values = append(r.Values, 3*math.Exp(-float64(st)/float64(300+100*k))+0.05+0.02*float64(seed)*math.Sin(float64(st)/200))
			}
			s.Runs = append(s.Runs, r)
		}
		ss = append(ss, s)
	}
	f, err = LearningCurves(ss, CurveOptions{YLabel: "dev loss", Title: "Learning curves"})
	if err != nil {
		t.Fatal(err)
	}
	Save("/tmp/prev/curves", f, SaveOptions{DPI: 200})
	f, err = LearningCurves(ss, CurveOptions{YLabel: "dev loss", LogY: true, Band: SD}); t.Log(err)
	Save("/tmp/prev/curveslog", f, SaveOptions{DPI: 200})
	var bs []Bar
	for k, n := range []string{"dot", "general", "concat", "scaled-dot", "location-based"} {
		bs = append(bs, Bar{Label: n, Values: []float64{90 + float64(k), 91 + float64(k)*1.5, 89.5 + float64(k)}})
	}
	f, err = Bars(bs, BarOptions{YLabel: "token accuracy (%)", ShowSeeds: true})
	if err != nil {
		t.Fatal(err)
	}
	Save("/tmp/prev/bars", f, SaveOptions{DPI: 200})
	bs = nil
	for _, g := range []string{"bahdanau", "luong"} {
		for k, n := range []string{"dot", "general", "concat", "scaled-dot"} {
			bs = append(bs, Bar{Label: n, Group: g, Values: []float64{30 + float64(k), 31 + float64(k)*1.5, 29.5 + float64(k)}})
		}
	}
	f, err = Bars(bs, BarOptions{YLabel: "BLEU", ShowSeeds: true})
	if err != nil {
		t.Fatal(err)
	}
	Save("/tmp/prev/barsg", f, SaveOptions{DPI: 200})

	img := image.NewNRGBA(image.Rect(0, 0, 224, 160))
	for y := 0; y < 160; y++ {
		for x := 0; x < 224; x++ {
			img.Set(x, y, color.NRGBA{uint8(x), uint8(100 + y/2), uint8(200 - x/2), 255})
		}
	}
	words := []string{"a", "bird", "flying", "over", "a", "body", "of", "water", "."}
	var att [][][]float64
	for k := range words {
		g := make([][]float64, 10)
		for r := range g {
			g[r] = make([]float64, 14)
			for c := range g[r] {
				d := math.Hypot(float64(c-(k*3)%14), float64(r-(k*2)%10))
				g[r][c] = math.Exp(-d * d / 4)
			}
		}
		att = append(att, g)
	}
	f, err = CaptionOverlay(img, words, att, OverlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	Save("/tmp/prev/overlay", f, SaveOptions{DPI: 200, PDF: true})
	f, _ = CaptionOverlay(img, words, att, OverlayOptions{Mask: HeatMask})
	Save("/tmp/prev/overlay2", f, SaveOptions{DPI: 200})
}
