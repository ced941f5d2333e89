package captioning

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// checkCorpus holds what every accepted captions file gives: entries with
// a name, at least one caption each, every token valid UTF-8 and non-empty.
func checkCorpus(t *testing.T, c *corpus) {
	t.Helper()
	for _, e := range c.entries {
		if e.name == "" || len(e.caps) == 0 {
			t.Fatalf("entry %+v: no name or no caption", e)
		}
		for _, cp := range e.caps {
			for _, tok := range cp {
				if tok == "" || !utf8.ValidString(tok) {
					t.Fatalf("entry %s: bad token %q", e.name, tok)
				}
			}
		}
	}
}

// FuzzFlickr feeds arbitrary bytes to the Flickr8k token reader: an error
// or a well-formed corpus, never a panic.
func FuzzFlickr(f *testing.F) {
	f.Add([]byte("1000268201.jpg#0\tA child in a pink dress .\n1000268201.jpg#1\tA girl going into a building .\n"))
	f.Add([]byte("\ufeffa.jpg#0\tA dog .\r\n\r\nb.jpg#0\tA cat .\n"))
	f.Add([]byte("a.jpg#0\t \n"))
	f.Add([]byte("no tab here\n"))
	f.Add([]byte("a.jpg\tno number\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := parseFlickr(bytes.NewReader(b), "fuzz.txt")
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.txt") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		checkCorpus(t, c)
	})
}

// FuzzKarpathy feeds arbitrary bytes to the Karpathy-split JSON reader: an
// error or a well-formed corpus, never a panic.
func FuzzKarpathy(f *testing.F) {
	f.Add([]byte(`{"images": [{"filename": "x.jpg", "filepath": "val2014", "split": "train",
  "sentences": [{"tokens": ["a", "dog"], "raw": "A dog."}]}], "dataset": "flickr8k"}`))
	f.Add([]byte(`{"images": [{"filename": "y.jpg", "split": "test", "sentences": [{"raw": "Two cats, sleeping."}]}]}`))
	f.Add([]byte(`{"images": [{"filename": "", "split": "nope", "sentences": []}]}`))
	f.Add([]byte(`{"images": [{"filename": "z.jpg", "split": "val", "sentences": [{"tokens": [""]}]}]}`))
	f.Add([]byte(`{"images": 3}`))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := parseKarpathy(b, "fuzz.json")
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.json") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		checkCorpus(t, c)
	})
}
