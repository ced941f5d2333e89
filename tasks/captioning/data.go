package captioning

import (
	"image"
	"math/rand/v2"

	"github.com/attnzoo/attnzoo/source"
	"github.com/attnzoo/attnzoo/tasks"
)

// Box is an axis-aligned region in fractions of the image:
// 0 ≤ X0 < X1 ≤ 1, 0 ≤ Y0 < Y1 ≤ 1, y pointing down. It converts to
// metrics.Region with a plain conversion, metrics.Region(b).
type Box struct{ X0, Y0, X1, Y1 float64 }

// Image is a normalised image (source.Image): C×H×W float32 values,
// channel-major (CHW), so channel c, row y, column x is
// Pix[(c*H+y)*W+x]. Each value is (v/255 − NormMean)/NormStd for the
// 8-bit channel value v (see Preprocess).
type Image = source.Image

// Example is one captioned image. The examples of one image share their
// Image, Features, Refs, Boxes and Raw: treat them as read-only.
type Example struct {
	ID       string           // file name, or a generated id ("shapes-train-000042")
	Image    *Image           // nil when the task gives precomputed features
	Features [][]float32      // S×D region features, nil for images
	Grid     [2]int           // rows, cols of the feature regions when they form a grid; 0, 0 if unknown
	Caption  []string         // the training target (one caption)
	Refs     [][]string       // every reference caption of this image (BLEU against all)
	Boxes    map[string][]Box // word → gold boxes of the objects it names in this image; nil when unknown
	Raw      image.Image      // the image the model sees, before normalisation (for overlays); nil for features
}

// Data is a task's splits and target vocabulary.
type Data struct {
	// Train holds one example per (image, caption) pair; Dev and Test one
	// per image, with Caption = Refs[0].
	Train, Dev, Test []Example
	Vocab            *tasks.Vocab // target vocabulary, built from Train only
	C, H, W          int          // image size after resizing (0 for features)
	S, D             int          // feature regions and their size (0 for images)
	// Notes says, one line each, what Load left out on purpose: captions
	// over max_len, images listed in no split file, bad images skipped with
	// skip_bad. Empty when nothing was left out; Load never leaves anything
	// out without a note.
	Notes []string
}

// streamBase is the PCG stream of the training split; dev and test use the
// next two, so each split has its own stream for a given seed. It is the
// same constant package tasks uses.
const streamBase = 0x6174746e7a6f6f00 // "attnzoo\x00"

func splitRand(seed int64, split int) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), streamBase+uint64(split)))
}
