package captioning

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// karpathyImage is one element of a Karpathy-split JSON's "images".
type karpathyImage struct {
	Filename  *string `json:"filename"`
	Filepath  string  `json:"filepath"`
	Split     *string `json:"split"`
	Sentences []struct {
		Tokens []string `json:"tokens"`
		Raw    string   `json:"raw"`
	} `json:"sentences"`
}

// karpathySplits maps the split names of Karpathy's files to Data's splits:
// restval (the rest of COCO's val2014) trains.
var karpathySplits = map[string]int{"train": 0, "restval": 0, "val": 1, "test": 2}

// parseKarpathy reads a Karpathy-split JSON file (dataset_flickr8k.json,
// dataset_coco.json):
//
//	{"images": [{"filename": "x.jpg", "filepath": "val2014", "split": "train",
//	  "sentences": [{"tokens": ["a", "dog"], "raw": "A dog."}]}], "dataset": "flickr8k"}
//
// An image's path is filepath/filename (filepath is optional). A
// sentence's tokens are used as given, lowercased; a sentence without
// tokens has its raw text tokenized. Keys other than these are ignored.
// Errors name the file and the line where the image's object begins.
func parseKarpathy(data []byte, name string) (*corpus, error) {
	c := &corpus{file: name}
	lines := lineCounter{data: data}
	syntax := func(err error) error {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return fmt.Errorf("%s:%d: %w", name, lines.at(se.Offset), err)
		case errors.As(err, &te):
			return fmt.Errorf("%s:%d: %w", name, lines.at(te.Offset), err)
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			return fmt.Errorf("%s:%d: unexpected end of JSON", name, lines.at(int64(len(data))))
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil {
		return nil, syntax(err)
	} else if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("%s:1: want a JSON object with an \"images\" array", name)
	}
	found := false
	seen := make(map[string]int)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, syntax(err)
		}
		if tok != "images" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, syntax(err)
			}
			continue
		}
		found = true
		at := dec.InputOffset()
		if tok, err := dec.Token(); err != nil {
			return nil, syntax(err)
		} else if d, ok := tok.(json.Delim); !ok || d != '[' {
			return nil, fmt.Errorf("%s:%d: \"images\" must be an array", name, lines.at(at))
		}
		for i := 0; dec.More(); i++ {
			n := lines.next(dec.InputOffset())
			var ki karpathyImage
			if err := dec.Decode(&ki); err != nil {
				return nil, syntax(err)
			}
			fail := func(format string, args ...any) error {
				return fmt.Errorf("%s:%d: images[%d]: "+format, append([]any{name, n, i}, args...)...)
			}
			if ki.Filename == nil || *ki.Filename == "" {
				return nil, fail("no \"filename\"")
			}
			if ki.Split == nil {
				return nil, fail("%s: no \"split\"", *ki.Filename)
			}
			split, ok := karpathySplits[*ki.Split]
			if !ok {
				return nil, fail("%s: unknown split %q (have: restval, test, train, val)", *ki.Filename, *ki.Split)
			}
			e := &entry{name: *ki.Filename, path: filepath.Join(ki.Filepath, *ki.Filename), line: n, split: split, row: len(c.entries)}
			if prev, dup := seen[e.path]; dup {
				return nil, fail("%s: listed again (first at line %d)", e.path, prev)
			}
			seen[e.path] = n
			for j, s := range ki.Sentences {
				toks := make([]string, 0, len(s.Tokens))
				for _, t := range s.Tokens {
					if t = strings.ToLower(strings.TrimSpace(t)); t != "" {
						toks = append(toks, t)
					}
				}
				if len(toks) == 0 {
					toks = captionTokenizer.Tokenize(s.Raw)
				}
				if len(toks) == 0 {
					return nil, fail("%s: sentences[%d]: empty caption", *ki.Filename, j)
				}
				e.caps = append(e.caps, toks)
			}
			if len(e.caps) == 0 {
				return nil, fail("%s: no sentences", *ki.Filename)
			}
			c.entries = append(c.entries, e)
		}
		if _, err := dec.Token(); err != nil { // ]
			return nil, syntax(err)
		}
	}
	if _, err := dec.Token(); err != nil { // }
		return nil, syntax(err)
	}
	if !found {
		return nil, fmt.Errorf("%s: no \"images\" array", name)
	}
	if len(c.entries) == 0 {
		return nil, fmt.Errorf("%s: \"images\" is empty", name)
	}
	return c, nil
}

// lineCounter turns byte offsets into 1-based line numbers.
type lineCounter struct {
	data []byte
	off  int64 // offsets before off are counted
	line int   // newlines before off
}

// at returns the line of offset off (any offset).
func (l *lineCounter) at(off int64) int {
	off = min(max(off, 0), int64(len(l.data)))
	return 1 + bytes.Count(l.data[:off], []byte{'\n'})
}

// next returns the line of the first byte at or after off that is not
// space or a comma; offsets must not decrease between calls.
func (l *lineCounter) next(off int64) int {
	for off < int64(len(l.data)) && strings.IndexByte(" \t\r\n,", l.data[off]) >= 0 {
		off++
	}
	if off < l.off {
		return l.at(off)
	}
	l.line += bytes.Count(l.data[l.off:off], []byte{'\n'})
	l.off = off
	return 1 + l.line
}
