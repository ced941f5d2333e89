package captioning

import (
	"errors"
	"fmt"
	"image"
	"image/draw"
	_ "image/gif" // register the decoders Load reads images with
	_ "image/jpeg"
	_ "image/png"
	"io"
	"math"
	"os"
)

// Every channel of every Image is normalised with the same fixed mean and
// standard deviation of v/255: black becomes −2, white +2, mid-grey ~0.
// Fixed (not computed on train) so that an image is normalised the same
// way whatever data set it comes with.
const (
	NormMean = 0.5
	NormStd  = 0.25
)

// Preprocess turns img into what a model sees: an RGB image of size×size
// pixels. With crop, the largest centred square of img is taken first (as
// Show, Attend and Tell did), so the aspect ratio is kept; without it, the
// whole image is stretched. Resizing is an area average: each output pixel
// is the mean of the source pixels it covers, weighted by the area they
// share, so a solid colour stays exactly that colour and shrinking by an
// integer factor averages whole blocks. Grey images give three equal
// channels; transparent pixels are taken over black (Go's premultiplied
// colours); EXIF orientation is ignored.
//
// It returns the normalised Image (computed from the unrounded averages)
// and the same pixels as 8-bit RGBA for display.
func Preprocess(img image.Image, size int, crop bool) (*Image, *image.RGBA, error) {
	im, raw, err := preprocess(img, size, crop)
	if err != nil {
		return nil, nil, fmt.Errorf("captioning: %w", err)
	}
	return im, raw, nil
}

func preprocess(img image.Image, size int, crop bool) (*Image, *image.RGBA, error) {
	if size < 1 {
		return nil, nil, fmt.Errorf("size must be >= 1, got %d", size)
	}
	b := img.Bounds()
	if b.Empty() {
		return nil, nil, errors.New("empty image")
	}
	if crop {
		side := min(b.Dx(), b.Dy())
		x0 := b.Min.X + (b.Dx()-side)/2
		y0 := b.Min.Y + (b.Dy()-side)/2
		b = image.Rect(x0, y0, x0+side, y0+side)
	}
	src, ok := img.(*image.RGBA)
	if !ok || src.Bounds() != b {
		src = image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
		draw.Draw(src, src.Bounds(), img, b.Min, draw.Src)
	}
	sw, sh := src.Bounds().Dx(), src.Bounds().Dy()
	wx, wy := areaWeights(sw, size), areaWeights(sh, size)

	// Horizontal pass: sh rows of size×3 values.
	tmp := make([]float64, sh*size*3)
	for y := range sh {
		row := src.Pix[y*src.Stride:]
		for j, ws := range wx {
			var acc [3]float64
			for _, w := range ws {
				p := row[4*w.i:]
				acc[0] += w.w * float64(p[0])
				acc[1] += w.w * float64(p[1])
				acc[2] += w.w * float64(p[2])
			}
			copy(tmp[(y*size+j)*3:], acc[:])
		}
	}
	// Vertical pass into CHW and RGBA.
	out := &Image{C: 3, H: size, W: size, Pix: make([]float32, 3*size*size)}
	raw := image.NewRGBA(image.Rect(0, 0, size, size))
	for i, ws := range wy {
		for j := range size {
			var acc [3]float64
			for _, w := range ws {
				t := tmp[(w.i*size+j)*3:]
				acc[0] += w.w * t[0]
				acc[1] += w.w * t[1]
				acc[2] += w.w * t[2]
			}
			for c, v := range acc {
				out.Pix[(c*size+i)*size+j] = float32((v/255 - NormMean) / NormStd)
				raw.Pix[i*raw.Stride+4*j+c] = uint8(math.Round(min(max(v, 0), 255)))
			}
			raw.Pix[i*raw.Stride+4*j+3] = 255
		}
	}
	return out, raw, nil
}

// normalize is Preprocess for an opaque RGBA image already at its size.
func normalize(img *image.RGBA) *Image {
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	out := &Image{C: 3, H: h, W: w, Pix: make([]float32, 3*w*h)}
	for y := range h {
		for x := range w {
			p := img.Pix[y*img.Stride+4*x:]
			for c := range 3 {
				out.Pix[(c*h+y)*w+x] = float32((float64(p[c])/255 - NormMean) / NormStd)
			}
		}
	}
	return out
}

type weight struct {
	i int     // source index
	w float64 // share of the output pixel
}

// areaWeights returns, for each of m output pixels along an axis of n
// source pixels, the source pixels it covers and their shares, which sum
// to 1: output j covers [j·n/m, (j+1)·n/m) in source coordinates.
func areaWeights(n, m int) [][]weight {
	out := make([][]weight, m)
	scale := float64(n) / float64(m)
	for j := range out {
		lo, hi := float64(j)*scale, float64(j+1)*scale
		// Integer bounds, exact for the common case of whole-pixel edges.
		first := j * n / m
		last := ((j+1)*n + m - 1) / m // ceil
		for i := first; i < last && i < n; i++ {
			ov := min(hi, float64(i+1)) - max(lo, float64(i))
			if ov > 0 {
				out[j] = append(out[j], weight{i, ov / scale})
			}
		}
	}
	return out
}

// LoadImage reads an image file (PNG, JPEG or GIF) and preprocesses it as
// Preprocess does. Errors name the file.
func LoadImage(path string, size int, crop bool) (*Image, *image.RGBA, error) {
	img, err := decodeFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("captioning: %w", err)
	}
	im, raw, err := preprocess(img, size, crop)
	if err != nil {
		return nil, nil, fmt.Errorf("captioning: %s: %w", path, err)
	}
	return im, raw, nil
}

// maxPixels bounds the images decodeFile decodes (a 10000×10000 photo), so
// that a damaged header cannot make it allocate gigabytes.
const maxPixels = 100_000_000

// decodeFile decodes an image file; errors name it.
func decodeFile(path string) (image.Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cfg, _, err := image.DecodeConfig(f)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot decode image: %w", path, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || int64(cfg.Width)*int64(cfg.Height) > maxPixels {
		return nil, fmt.Errorf("%s: cannot decode image: %d×%d pixels (at most %d in all)", path, cfg.Width, cfg.Height, maxPixels)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	img, _, err := image.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot decode image: %w", path, err)
	}
	return img, nil
}
