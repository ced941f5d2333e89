// Package source says what a task's sources are, as an encoder reads them:
// the kinds (Tokens, Images, Features) that pair a task with the encoders
// that can read it, and the image that the image tasks give and the image
// encoders prepare. Packages tasks (a task's Info.Input) and seq2seq (an
// encoder's EncoderInfo.Reads) both name these; neither defines its own.
package source

// Kind is what a task's sources are and what an encoder reads: an
// experiment pairs a task only with an encoder that reads its kind.
type Kind string

const (
	Tokens   Kind = "tokens"   // token ids (translation tasks)
	Images   Kind = "images"   // whole images (Image)
	Features Kind = "features" // precomputed region features: S regions × D values
)

// Image is a C×H×W image, channel-major, values normalised by the task.
type Image struct {
	C, H, W int
	Pix     []float32
}

// At returns channel c at row y, column x.
func (im *Image) At(c, y, x int) float32 { return im.Pix[(c*im.H+y)*im.W+x] }

// Shape is the size of a task's sources that are not tokens, known before
// they are loaded: images of C×H×W values, or S regions of D feature
// values each.
type Shape struct {
	C, H, W int
	S, D    int
}

// Item is one source that is not tokens: an image, or S region feature
// vectors (Features[s] holds D values).
type Item struct {
	Image    *Image
	Features [][]float32
}
