package plots

import (
	"image"
	"math"
	"testing"
)

func TestUpsampleOneHot(t *testing.T) {
	// A one-hot grid upsampled to w × h peaks inside its cell: cell (r, c)
	// of a G_r × G_c grid covers pixels x in [c·w/G_c, (c+1)·w/G_c) and
	// y in [r·h/G_r, (r+1)·h/G_r).
	for _, tc := range []struct {
		rows, cols, r, c, w, h int
		sigma                  float64
	}{
		{4, 4, 0, 0, 40, 40, 0.5},   // corner cell; pixels 0..9 × 0..9
		{4, 4, 2, 1, 40, 40, 0.5},   // pixels x 10..19, y 20..29
		{4, 4, 3, 3, 40, 40, 0},     // unsmoothed
		{3, 5, 1, 4, 50, 30, 0.5},   // non-square grid: x 40..49, y 10..19
		{14, 14, 7, 3, 224, 224, 1}, // Xu et al.'s 14 × 14 grid on 224 px: x 48..63, y 112..127
	} {
		m := upsample(oneHot(tc.rows, tc.cols, tc.r, tc.c), tc.w, tc.h, tc.sigma)
		best, bx, by := math.Inf(-1), -1, -1
		lo := math.Inf(1)
		for y := range tc.h {
			for x := range tc.w {
				if v := m[y*tc.w+x]; v > best {
					best, bx, by = v, x, y
				}
				lo = math.Min(lo, m[y*tc.w+x])
			}
		}
		x0, x1 := tc.c*tc.w/tc.cols, (tc.c+1)*tc.w/tc.cols
		y0, y1 := tc.r*tc.h/tc.rows, (tc.r+1)*tc.h/tc.rows
		if bx < x0 || bx >= x1 || by < y0 || by >= y1 {
			t.Errorf("%+v: peak at (%d, %d), want x in [%d, %d), y in [%d, %d)", tc, bx, by, x0, x1, y0, y1)
		}
		if best != 1 || lo != 0 {
			t.Errorf("%+v: map spans [%v, %v], want [0, 1]", tc, lo, best)
		}
	}
	// A constant grid has nothing to point at: all ones.
	for _, v := range upsample([][]float64{{0.25, 0.25}, {0.25, 0.25}}, 6, 4, 0.5) {
		if v != 1 {
			t.Fatalf("constant grid upsampled to %v, want 1", v)
		}
	}
}

func TestBlendAttention(t *testing.T) {
	img := smallImage() // 16 × 12
	sub := img.SubImage(image.Rect(3, 2, 13, 9))
	for _, tc := range []struct {
		name string
		img  image.Image
		mask Mask
		w, h int
	}{
		{"gray", img, GrayMask, 16, 12},
		{"white", img, WhiteMask, 16, 12},
		{"heat", img, HeatMask, 16, 12},
		{"offset bounds", sub, GrayMask, 10, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := BlendAttention(tc.img, oneHot(3, 4, 1, 2), OverlayOptions{Mask: tc.mask})
			if err != nil {
				t.Fatal(err)
			}
			if b := out.Bounds(); b != image.Rect(0, 0, tc.w, tc.h) {
				t.Errorf("bounds %v, want (0,0)-(%d,%d)", b, tc.w, tc.h)
			}
		})
	}
	// GrayMask at opacity 0.8 over a pixel: 0.2·image + 0.8·attention. At
	// the peak (attention 1) the blue channel 0xCC = 204 becomes
	// 0.2·204 + 0.8·255 = 244.8 → 245; where attention is 0 it becomes
	// 0.2·204 = 40.8 → 41.
	out, err := BlendAttention(img, oneHot(3, 4, 0, 0), OverlayOptions{Smooth: -1})
	if err != nil {
		t.Fatal(err)
	}
	// Unsmoothed, cell (0, 0) of 4 × 3 cells of 4 × 4 px has its centre at
	// (1.5, 1.5): pixel (0, 0) clamps to it (attention 1); pixel (7, 11)
	// interpolates between cells of row 2 and columns 1–2, all 0.
	m := upsample(oneHot(3, 4, 0, 0), 16, 12, -1)
	if m[0] != 1 || m[11*16+7] != 0 {
		t.Fatalf("map at (0, 0) and (7, 11) = %v, %v; want 1, 0", m[0], m[11*16+7])
	}
	if b := out.NRGBAAt(0, 0).B; b != 245 {
		t.Errorf("blue at the peak = %d, want 245", b)
	}
	if b := out.NRGBAAt(7, 11).B; b != 41 {
		t.Errorf("blue where attention is 0 = %d, want 41", b)
	}
}

func TestCaptionOverlay(t *testing.T) {
	img := smallImage()
	words := []string{"a", "bird"}
	att := [][][]float64{oneHot(3, 4, 0, 0), oneHot(3, 4, 2, 3)}
	for _, tc := range []struct {
		name  string
		img   image.Image
		words []string
		att   [][][]float64
		opt   OverlayOptions
		want  string
	}{
		{"default", img, words, att, OverlayOptions{}, ""},
		{"heat, no image, 1 col", img, words, att, OverlayOptions{Mask: HeatMask, OmitImage: true, Cols: 1, Width: SingleColumn}, ""},
		{"nil image", nil, words, att, OverlayOptions{}, "nil image"},
		{"no words", img, nil, nil, OverlayOptions{}, "no words"},
		{"count mismatch", img, words, att[:1], OverlayOptions{}, "1 attention grids for 2 words"},
		{"ragged grid", img, words, [][][]float64{att[0], {{1, 2}, {3}}}, OverlayOptions{}, `word 1 ("bird"): attention grid row 1 has 1 columns, want 2`},
		{"empty grid", img, words, [][][]float64{att[0], nil}, OverlayOptions{}, "empty attention grid"},
		{"NaN", img, words, [][][]float64{att[0], {{math.NaN()}}}, OverlayOptions{}, "attention [0][0] is NaN"},
		{"bad mask", img, words, att, OverlayOptions{Mask: 7}, "unknown mask 7"},
		{"empty image", image.NewNRGBA(image.Rect(0, 0, 0, 5)), words, att, OverlayOptions{}, "empty image (0×5)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := CaptionOverlay(tc.img, tc.words, tc.att, tc.opt)
			if !wantErr(t, err, tc.want) {
				return
			}
			// At 72 dpi a point is a pixel.
			b := f.Image(72).Bounds()
			wantW, wantH := int(math.Round(f.Width.Points())), int(math.Round(f.Height.Points()))
			if b.Dx() != wantW || b.Dy() != wantH {
				t.Errorf("composite %d×%d px, want %d×%d", b.Dx(), b.Dy(), wantW, wantH)
			}
		})
	}
}

func TestDownscale(t *testing.T) {
	for _, tc := range []struct {
		w, h, max, wantW, wantH int
	}{
		{640, 480, 256, 256, 192}, // 480·256/640 = 192
		{100, 300, 150, 50, 150},  // 100·150/300 = 50
		{16, 12, 256, 16, 12},     // small: unchanged
	} {
		img := image.NewNRGBA(image.Rect(0, 0, tc.w, tc.h))
		if b := downscale(img, tc.max).Bounds(); b.Dx() != tc.wantW || b.Dy() != tc.wantH {
			t.Errorf("downscale %d×%d to %d: %d×%d, want %d×%d", tc.w, tc.h, tc.max, b.Dx(), b.Dy(), tc.wantW, tc.wantH)
		}
	}
}
