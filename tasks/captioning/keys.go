package captioning

import (
	"context"
	"fmt"

	"github.com/attnzoo/attnzoo/tasks"
)

// captionKeys are the keys the images and features tasks share, and what
// both do with them: the captions file and its format, the splits, max_len,
// and the vocabulary's min_count and max_vocab.
type captionKeys struct {
	task             string // "images" or "features", for errors
	captions, format string
	splits           splitOptions
	explicit         [2]bool // dev, test given
	maxLen, minCount int
	maxVoc           int
}

// readCaptionKeys reads and checks the shared keys.
func readCaptionKeys(task string, r *optionReader) captionKeys {
	k := captionKeys{
		task:     task,
		captions: r.RequiredString("captions"),
		format:   r.String("format", "auto"),
		maxLen:   r.Int("max_len", 0),
		minCount: r.Int("min_count", 1),
		maxVoc:   r.Int("max_vocab", 0),
	}
	k.splits, k.explicit = readSplitOptions(r)
	r.Check(k.format == "auto" || k.format == formatFlickr || k.format == formatKarpathy,
		`format: must be "auto", "flickr" or "karpathy", got %q`, k.format)
	r.Check(k.maxLen >= 0, "max_len: must be >= 0 (0: no limit), got %d", k.maxLen)
	r.Check(k.minCount >= 1, "min_count: must be >= 1, got %d", k.minCount)
	r.Check(k.maxVoc >= 0, "max_vocab: must be >= 0 (0: no limit), got %d", k.maxVoc)
	return k
}

// resolve checks the captions file, resolves format "auto" and rejects
// split keys that the format makes meaningless.
func (k *captionKeys) resolve() error {
	if err := tasks.CheckFile(k.captions); err != nil {
		return fmt.Errorf("captioning: %s: captions: %w", k.task, err)
	}
	f, err := detectFormat(k.captions, k.format)
	if err != nil {
		return fmt.Errorf("captioning: %s: captions: %w", k.task, err)
	}
	k.format = f
	return checkSplitOptions(k.task, k.format, k.splits, k.explicit)
}

// readCorpus reads the captions file.
func (k *captionKeys) readCorpus() (*corpus, error) {
	c, err := readCorpus(k.captions, k.format)
	if err != nil {
		return nil, fmt.Errorf("captioning: %s: %w", k.task, err)
	}
	return c, nil
}

// data fills d's splits with an example for each caption of parts' entries
// (max_len applied) and builds the vocabulary from train's captions.
func (k *captionKeys) data(ctx context.Context, d *Data, parts [3][]*entry, example func(*entry) Example) (*Data, error) {
	d.Notes = append(d.Notes, buildSplits(d, parts, k.maxLen, example)...)
	if len(d.Train) == 0 {
		return nil, fmt.Errorf("captioning: %s: %s: no training examples", k.task, k.captions)
	}
	if err := finish(ctx, d, k.minCount, k.maxVoc); err != nil {
		return nil, err
	}
	return d, nil
}

// keepEntries drops from each split the entries that keep rejects and
// returns how many it dropped.
func keepEntries(parts *[3][]*entry, keep func(*entry) bool) int {
	dropped := 0
	for i, p := range parts {
		var kept []*entry
		for _, e := range p {
			if keep(e) {
				kept = append(kept, e)
			} else {
				dropped++
			}
		}
		parts[i] = kept
	}
	return dropped
}
