package captioning

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/attnzoo/attnzoo/tasks"
)

// splitOptions say how to split a corpus whose file gives no splits.
type splitOptions struct {
	lists     [3]string // train_list, dev_list, test_list; "" when not given
	dev, test float64   // fractions, used when no list is given
}

// readSplitOptions reads train_list, dev_list, test_list, dev and test.
func readSplitOptions(r *optionReader) (splitOptions, [2]bool) {
	var s splitOptions
	for i, k := range listKeys {
		s.lists[i] = r.String(k, "")
	}
	explicit := [2]bool{r.Has("dev"), r.Has("test")}
	s.dev = r.Float("dev", 0.1)
	s.test = r.Float("test", 0.1)
	r.Check(0 <= s.dev && s.dev < 1, "dev: must be a fraction in [0, 1), got %v", s.dev)
	r.Check(0 <= s.test && s.test < 1, "test: must be a fraction in [0, 1), got %v", s.test)
	r.Check(s.dev+s.test < 1 || s.dev >= 1 || s.test >= 1, "dev %v + test %v: must leave something to train on (sum < 1)", s.dev, s.test)
	return s, explicit
}

var listKeys = [3]string{"train_list", "dev_list", "test_list"}

func (s splitOptions) hasLists() bool { return s.lists != [3]string{} }

// checkSplitOptions rejects split keys that the format makes meaningless.
func checkSplitOptions(task, format string, s splitOptions, explicit [2]bool) error {
	var errs []error
	for i, k := range listKeys {
		if s.lists[i] == "" {
			continue
		}
		if format == formatKarpathy {
			errs = append(errs, fmt.Errorf("captioning: %s: %s: the Karpathy JSON gives the splits; split lists are for the flickr format", task, k))
		} else if err := tasks.CheckFile(s.lists[i]); err != nil {
			errs = append(errs, fmt.Errorf("captioning: %s: %s: %w", task, k, err))
		}
	}
	for i, k := range [2]string{"dev", "test"} {
		if !explicit[i] {
			continue
		}
		if format == formatKarpathy {
			errs = append(errs, fmt.Errorf("captioning: %s: %s: the Karpathy JSON gives the splits; fractions are for the flickr format", task, k))
		} else if s.hasLists() {
			errs = append(errs, fmt.Errorf("captioning: %s: %s: fractions cannot be used with train_list, dev_list or test_list", task, k))
		}
	}
	return errors.Join(errs...)
}

// split cuts the entries into train, dev and test:
//   - a Karpathy file gives each image's split;
//   - with split lists, each list names its split's images, one file name a
//     line; images in no list go to train when train_list is not given,
//     and are otherwise left out (with a note);
//   - otherwise the images are shuffled with the seed and cut into test,
//     dev and train, in that order, by the dev and test fractions.
//
// Images keep their file order within a split, except in the last case.
func split(c *corpus, s splitOptions, seed int64) (parts [3][]*entry, notes []string, err error) {
	if c.entries[0].split >= 0 {
		for _, e := range c.entries {
			parts[e.split] = append(parts[e.split], e)
		}
		return parts, nil, nil
	}
	if !s.hasLists() {
		es := append([]*entry(nil), c.entries...)
		nTest := int(math.Round(s.test * float64(len(es))))
		nDev := int(math.Round(s.dev * float64(len(es))))
		if nTest+nDev >= len(es) {
			return parts, nil, fmt.Errorf("%s: %d images leave none to train on after dev %v and test %v", c.file, len(es), s.dev, s.test)
		}
		splitRand(seed, 0).Shuffle(len(es), func(i, j int) { es[i], es[j] = es[j], es[i] })
		parts[2], parts[1], parts[0] = es[:nTest], es[nTest:nTest+nDev], es[nTest+nDev:]
		return parts, nil, nil
	}
	byName := make(map[string]*entry, len(c.entries))
	for _, e := range c.entries {
		byName[e.name] = e
	}
	where := make(map[*entry]string) // list file:line that claimed it
	for i, list := range s.lists {
		if list == "" {
			continue
		}
		names, lines, err := readList(list)
		if err != nil {
			return parts, nil, err
		}
		for j, n := range names {
			e := byName[n]
			if e == nil {
				return parts, nil, fmt.Errorf("%s:%d: image %q has no captions in %s", list, lines[j], n, c.file)
			}
			if w, dup := where[e]; dup {
				return parts, nil, fmt.Errorf("%s:%d: image %q is already listed at %s", list, lines[j], n, w)
			}
			where[e] = fmt.Sprintf("%s:%d", list, lines[j])
			e.split = i
		}
	}
	var left []string
	for _, e := range c.entries {
		if _, ok := where[e]; !ok {
			if s.lists[0] != "" {
				left = append(left, e.name)
				continue
			}
			e.split = 0
		}
		parts[e.split] = append(parts[e.split], e)
	}
	if len(left) > 0 {
		notes = append(notes, fmt.Sprintf("%s: %d images listed in no split file, left out (first: %s)", c.file, len(left), left[0]))
	}
	return parts, notes, nil
}

// readList reads a split list (Flickr_8k.trainImages.txt): one image file
// name a line; blank lines are skipped.
func readList(path string) (names []string, lines []int, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	for i, line := range strings.Split(string(data), "\n") {
		if i == 0 {
			line = strings.TrimPrefix(line, "\ufeff")
		}
		if line = strings.TrimSpace(line); line != "" {
			names = append(names, line)
			lines = append(lines, i+1)
		}
	}
	return names, lines, nil
}

// buildSplits makes the examples of the three splits from the entries and
// their per-image payload: Train gets one example per caption of at most
// maxLen tokens (0: no limit), Dev and Test one per image with every
// caption as a reference. It returns a note when captions were dropped.
func buildSplits(d *Data, parts [3][]*entry, maxLen int, payload func(e *entry) Example) []string {
	dropped, total, bare := 0, 0, 0
	for split, es := range parts {
		for _, e := range es {
			ex := payload(e)
			ex.Refs = e.caps
			if split > 0 {
				ex.Caption = e.caps[0]
				if split == 1 {
					d.Dev = append(d.Dev, ex)
				} else {
					d.Test = append(d.Test, ex)
				}
				continue
			}
			kept := 0
			for _, c := range e.caps {
				total++
				if maxLen > 0 && len(c) > maxLen {
					dropped++
					continue
				}
				ex.Caption = c
				d.Train = append(d.Train, ex)
				kept++
			}
			if kept == 0 {
				bare++
			}
		}
	}
	if dropped == 0 {
		return nil
	}
	note := "max_len " + strconv.Itoa(maxLen) + ": dropped " + strconv.Itoa(dropped) + " of " + strconv.Itoa(total) + " training captions"
	if bare > 0 {
		note += fmt.Sprintf(", leaving %d training images with none", bare)
	}
	return []string{note}
}
