package captioning

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/attnzoo/attnzoo/tasks"
)

// The caption file formats.
const (
	formatFlickr   = "flickr"
	formatKarpathy = "karpathy"
)

// captionTokenizer lowercases and splits raw captions into word tokens:
// "A child in a pink dress ." is a, child, in, a, pink, dress, . (see
// tasks.TSVFormat.Tokenize).
var captionTokenizer = tasks.TSVFormat{Lowercase: true}

// entry is one image of a captions file.
type entry struct {
	name  string     // the image's id: the file name as the captions file gives it
	path  string     // its path relative to the image folder
	line  int        // the captions file line where it first appears
	caps  [][]string // its captions, tokenized
	split int        // 0 train, 1 dev, 2 test; -1 when the file gives none
	row   int        // its row of a features array
}

// corpus is a captions file's images, in order of first appearance.
type corpus struct {
	file    string // the captions file
	entries []*entry
}

// detectFormat resolves "auto": a .json file is Karpathy's, a .txt or
// .token file Flickr's, and anything else is Karpathy's if its first
// non-space byte is '{'.
func detectFormat(path, format string) (string, error) {
	if format != "auto" {
		return format, nil
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json":
		return formatKarpathy, nil
	case ".txt", ".token":
		return formatFlickr, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	for {
		r, _, err := br.ReadRune()
		if err != nil {
			return formatFlickr, nil
		}
		if r == '\ufeff' || r == ' ' || r == '\t' || r == '\r' || r == '\n' {
			continue
		}
		if r == '{' {
			return formatKarpathy, nil
		}
		return formatFlickr, nil
	}
}

// readCorpus reads a captions file in the given format.
func readCorpus(path, format string) (*corpus, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if format == formatKarpathy {
		return parseKarpathy(data, path)
	}
	return parseFlickr(bytes.NewReader(data), path)
}
