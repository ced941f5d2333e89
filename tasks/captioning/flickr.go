package captioning

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// parseFlickr reads the Flickr8k/Flickr30k token format: one caption a
// line, "IMAGE#N<TAB>CAPTION", as in
//
//	1000268201_693b08cb0e.jpg#0	A child in a pink dress is climbing up a set of stairs .
//
// Blank lines, a trailing \r and a byte order mark are ignored. Images come
// in order of first appearance; a line without the tab or the #N, with
// invalid UTF-8 or with an empty caption is an error naming file:line.
func parseFlickr(r io.Reader, name string) (*corpus, error) {
	c := &corpus{file: name}
	index := make(map[string]*entry)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if n == 1 {
			line = strings.TrimPrefix(line, "\ufeff")
		}
		line = strings.TrimSuffix(line, "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		fail := func(format string, args ...any) error {
			return fmt.Errorf("%s:%d: "+format, append([]any{name, n}, args...)...)
		}
		if !utf8.ValidString(line) {
			return nil, fail("invalid UTF-8")
		}
		key, text, ok := strings.Cut(line, "\t")
		if !ok {
			return nil, fail("no tab between IMAGE#N and the caption")
		}
		key = strings.TrimSpace(key)
		i := strings.LastIndexByte(key, '#')
		if i <= 0 || !allDigits(key[i+1:]) {
			return nil, fail("%q: want IMAGE#N, as 1000268201_693b08cb0e.jpg#0", key)
		}
		toks := captionTokenizer.Tokenize(text)
		if len(toks) == 0 {
			return nil, fail("empty caption for %s", key)
		}
		img := key[:i]
		e := index[img]
		if e == nil {
			e = &entry{name: img, path: img, line: n, split: -1, row: len(c.entries)}
			index[img] = e
			c.entries = append(c.entries, e)
		}
		e.caps = append(e.caps, toks)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(c.entries) == 0 {
		return nil, fmt.Errorf("%s: no captions", name)
	}
	return c, nil
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
