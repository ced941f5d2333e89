package captioning

import (
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/attnzoo/attnzoo/source"
	"github.com/attnzoo/attnzoo/tasks"
)

func init() { Register("images", source.Images, newImages) }

// imagesTask is the images task: a folder of images (PNG, JPEG or GIF)
// and their captions, in the Flickr8k token format or a Karpathy-split
// JSON (see parseFlickr and parseKarpathy).
//
// Keys and defaults:
//
//	dir         required  the image folder; caption file names are relative to it
//	captions    required  the captions file
//	format      "auto"    "flickr", "karpathy" or "auto": .json is Karpathy's,
//	                      .txt and .token Flickr's, else Karpathy's if the file starts with '{'
//	size        64        images are resized to size×size (small, for CPU training;
//	                      Show, Attend and Tell used 224)
//	crop        true      take the largest centred square first (keeps the aspect
//	                      ratio); false stretches the whole image
//	train_list, dev_list, test_list  ""  flickr format only: files naming each
//	                      split's images, one a line (Flickr_8k.trainImages.txt)
//	dev, test   0.1       flickr format without lists: fractions of the images
//	max_len     0         training captions longer than this (in tokens) are
//	                      dropped, with a note in Data.Notes; 0: no limit.
//	                      Dev and test keep every reference.
//	min_count   1         vocabulary: keep words seen at least this often in train
//	max_vocab   0         vocabulary: keep at most this many words besides the specials; 0: all
//	skip_bad    false     skip images that are missing or cannot be decoded,
//	                      with a note in Data.Notes, instead of failing
//
// Splits: see split. Every image of a split is read, in parallel, and
// decoded once; its examples share the Image and Raw. Raw is the image at
// size×size, before normalisation (reopen dir/ID for the full-size one).
// Without skip_bad, the first bad image in captions-file order stops Load
// with an error naming the image file and the captions-file line that
// refers to it; nothing is ever dropped silently.
type imagesTask struct {
	dir string
	captionKeys
	size          int
	crop, skipBad bool
}

func newImages(opts tasks.Options) (Task, error) {
	r := readOptions("images", opts)
	t := &imagesTask{dir: r.RequiredString("dir")}
	t.captionKeys = readCaptionKeys("images", r)
	t.size = r.Int("size", 64)
	t.crop = r.Bool("crop", true)
	t.skipBad = r.Bool("skip_bad", false)
	r.Check(t.size >= 1 && t.size <= 4096, "size: must be in [1, 4096], got %d", t.size)
	if err := r.Err(); err != nil {
		return nil, err
	}
	if fi, err := os.Stat(t.dir); err != nil {
		return nil, fmt.Errorf("captioning: images: dir: %w", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("captioning: images: dir: %s is not a directory", t.dir)
	}
	if err := t.resolve(); err != nil {
		return nil, err
	}
	return t, nil
}

func (t *imagesTask) Name() string { return "images" }

// Load reads the captions, splits them and reads every image of every split.
func (t *imagesTask) Load(seed int64) (*Data, error) {
	return t.LoadContext(context.Background(), seed)
}

// LoadContext is Load, stopping early when ctx is done.
func (t *imagesTask) LoadContext(ctx context.Context, seed int64) (*Data, error) {
	c, err := t.readCorpus()
	if err != nil {
		return nil, err
	}
	parts, notes, err := split(c, t.splits, seed)
	if err != nil {
		return nil, fmt.Errorf("captioning: images: %w", err)
	}
	var all []*entry
	for _, p := range parts {
		all = append(all, p...)
	}
	type loaded struct {
		img *Image
		raw *image.RGBA
		err error
	}
	res := make([]loaded, len(all))
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(runtime.GOMAXPROCS(0), max(len(all), 1)) {
		wg.Go(func() {
			for i := range next {
				res[i].img, res[i].raw, res[i].err = t.read(c, all[i])
			}
		})
	}
	for i := range all {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	// Report bad images in captions-file order (all is in split order).
	var bad []int
	for i := range res {
		if res[i].err != nil {
			bad = append(bad, i)
		}
	}
	if len(bad) > 0 {
		first := bad[0]
		for _, i := range bad {
			if all[i].line < all[first].line {
				first = i
			}
		}
		if !t.skipBad {
			err := res[first].err
			if len(bad) > 1 {
				err = fmt.Errorf("%w (and %d more bad images; skip_bad = true skips them)", err, len(bad)-1)
			}
			return nil, err
		}
		notes = append(notes, fmt.Sprintf("skip_bad: skipped %d unreadable or missing images (first: %v)", len(bad), res[first].err))
		skip := make(map[*entry]bool, len(bad))
		for _, i := range bad {
			skip[all[i]] = true
		}
		keepEntries(&parts, func(e *entry) bool { return !skip[e] })
	}
	byEntry := make(map[*entry]loaded, len(all))
	for i, e := range all {
		byEntry[e] = res[i]
	}
	return t.data(ctx, &Data{C: 3, H: t.size, W: t.size, Notes: notes}, parts, func(e *entry) Example {
		l := byEntry[e]
		return Example{ID: e.name, Image: l.img, Raw: l.raw}
	})
}

// read reads one image; errors name the image file and the captions line.
func (t *imagesTask) read(c *corpus, e *entry) (*Image, *image.RGBA, error) {
	path := filepath.Join(t.dir, e.path)
	img, err := decodeFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, fmt.Errorf("captioning: images: %s:%d: image %q not found in %s", c.file, e.line, e.path, t.dir)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("captioning: images: %s:%d: %w", c.file, e.line, err)
	}
	im, raw, err := preprocess(img, t.size, t.crop)
	if err != nil {
		return nil, nil, fmt.Errorf("captioning: images: %s (from %s:%d): %w", path, c.file, e.line, err)
	}
	return im, raw, nil
}
