package captioning

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// The .npy format (numpy's NEP 1): the magic "\x93NUMPY", a major and a
// minor version byte, the header's length (uint16 little-endian in version
// 1.0, uint32 in 2.0 and 3.0), then the header: a Python dict literal
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3, 4), } padded
// with spaces and ended by '\n'; the data follows.
//
// This reader is kept rather than codeberg.org/sbinet/npyio (v0.14.0),
// measured on our inputs: npyio panics on 9 of the 13 fuzz-corpus headers
// and on a header whose dict keys come in another order (slice bounds,
// not an error), reads 'shape': (1,)} without numpy's trailing ", " as a
// scalar, allocates the whole array a header announces before reading
// (shape (10¹²,) over 4 bytes of data exhausts memory), accepts data past
// the array's end and negative dimensions, rejects version 3.0 headers,
// and reports a short file as a bare EOF with no shape.
const npyMagic = "\x93NUMPY"

// maxNPYHeader bounds the header length a reader accepts (numpy's own
// limit is 10000 bytes unless told otherwise).
const maxNPYHeader = 1 << 20

// npyHeader is a parsed .npy header.
type npyHeader struct {
	major   int    // format version 1, 2 or 3
	descr   string // dtype, as '<f4'
	fortran bool
	shape   []int
	offset  int64 // where the data begins
}

// readNPYHeader reads and parses the header of a .npy stream, leaving r at
// the first byte of the data. It checks the syntax, not the dtype or shape.
func readNPYHeader(r io.Reader) (npyHeader, error) {
	var h npyHeader
	var pre [8]byte
	if n, err := io.ReadFull(r, pre[:]); err != nil {
		if n < len(npyMagic) || string(pre[:len(npyMagic)]) != npyMagic {
			return h, errors.New(`not a .npy file: no "\x93NUMPY" magic`)
		}
		return h, errors.New("truncated header")
	}
	if string(pre[:6]) != npyMagic {
		return h, errors.New(`not a .npy file: no "\x93NUMPY" magic`)
	}
	h.major = int(pre[6])
	var hlen int
	switch h.major {
	case 1:
		var b [2]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return h, errors.New("truncated header")
		}
		hlen = int(binary.LittleEndian.Uint16(b[:]))
		h.offset = 10
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return h, errors.New("truncated header")
		}
		n := binary.LittleEndian.Uint32(b[:])
		if n > maxNPYHeader {
			return h, fmt.Errorf("header length %d is larger than %d bytes", n, maxNPYHeader)
		}
		hlen = int(n)
		h.offset = 12
	default:
		return h, fmt.Errorf("unsupported format version %d.%d (have: 1.0, 2.0, 3.0)", pre[6], pre[7])
	}
	buf := make([]byte, hlen)
	if _, err := io.ReadFull(r, buf); err != nil {
		return h, fmt.Errorf("truncated header: want %d bytes", hlen)
	}
	h.offset += int64(hlen)
	if err := parseNPYDict(string(buf), &h); err != nil {
		return h, fmt.Errorf("header %q: %w", strings.TrimRight(string(buf), " \n"), err)
	}
	return h, nil
}

// parseNPYDict parses the header dict: exactly the keys 'descr' (a
// string), 'fortran_order' (True or False) and 'shape' (a tuple of
// non-negative integers; Python 2's 3L is accepted), in any order, with
// an optional trailing comma, followed by nothing but white space.
func parseNPYDict(s string, h *npyHeader) error {
	p := &dictParser{s: s}
	if !p.eat('{') {
		return errors.New("want a dict beginning with '{'")
	}
	got := make(map[string]bool)
	for {
		if p.eat('}') {
			break
		}
		key, err := p.str()
		if err != nil {
			return fmt.Errorf("key: %w", err)
		}
		if got[key] {
			return fmt.Errorf("key %q repeated", key)
		}
		got[key] = true
		if !p.eat(':') {
			return fmt.Errorf("want ':' after %q", key)
		}
		switch key {
		case "descr":
			if p.peek() == '[' || p.peek() == '{' {
				return errors.New("descr: structured dtypes are not supported")
			}
			if h.descr, err = p.str(); err != nil {
				return fmt.Errorf("descr: %w", err)
			}
		case "fortran_order":
			switch {
			case p.word("True"):
				h.fortran = true
			case p.word("False"):
				h.fortran = false
			default:
				return errors.New("fortran_order: want True or False")
			}
		case "shape":
			if h.shape, err = p.tuple(); err != nil {
				return fmt.Errorf("shape: %w", err)
			}
		default:
			return fmt.Errorf("unexpected key %q (have: descr, fortran_order, shape)", key)
		}
		if p.eat(',') {
			continue
		}
		if !p.eat('}') {
			return fmt.Errorf("want ',' or '}' after the value of %q", key)
		}
		break
	}
	if strings.TrimSpace(p.s[p.i:]) != "" {
		return errors.New("text after the dict")
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if !got[k] {
			return fmt.Errorf("no %q key", k)
		}
	}
	return nil
}

// dictParser reads the tokens of a Python literal; every method skips the
// white space before its token.
type dictParser struct {
	s string
	i int
}

func (p *dictParser) skip() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *dictParser) peek() byte {
	p.skip()
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *dictParser) eat(c byte) bool {
	if p.peek() == c {
		p.i++
		return true
	}
	return false
}

// word eats w when it stands alone (not followed by a letter, digit or _).
func (p *dictParser) word(w string) bool {
	p.skip()
	if !strings.HasPrefix(p.s[p.i:], w) {
		return false
	}
	if j := p.i + len(w); j < len(p.s) && isIdent(p.s[j]) {
		return false
	}
	p.i += len(w)
	return true
}

func isIdent(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// str reads a quoted string without escapes.
func (p *dictParser) str() (string, error) {
	q := p.peek()
	if q != '\'' && q != '"' {
		return "", errors.New("want a quoted string")
	}
	end := strings.IndexByte(p.s[p.i+1:], q)
	if end < 0 {
		return "", errors.New("unterminated string")
	}
	v := p.s[p.i+1 : p.i+1+end]
	if strings.IndexByte(v, '\\') >= 0 {
		return "", errors.New("escapes in strings are not supported")
	}
	p.i += end + 2
	return v, nil
}

// tuple reads (), (n,) or (n, m, ...) with an optional trailing comma.
func (p *dictParser) tuple() ([]int, error) {
	if !p.eat('(') {
		return nil, errors.New("want a tuple")
	}
	dims := []int{}
	comma := false // the last token was a comma
	for {
		if p.eat(')') {
			if len(dims) == 1 && !comma {
				return nil, errors.New("(n) is not a tuple: want (n,)")
			}
			return dims, nil
		}
		if len(dims) > 0 && !comma {
			return nil, errors.New("want ',' or ')'")
		}
		p.skip()
		j := p.i
		for j < len(p.s) && '0' <= p.s[j] && p.s[j] <= '9' {
			j++
		}
		if j == p.i {
			return nil, errors.New("want a non-negative integer")
		}
		n, err := strconv.Atoi(p.s[p.i:j])
		if err != nil {
			return nil, fmt.Errorf("dimension %s is too large", p.s[p.i:j])
		}
		p.i = j
		if p.i < len(p.s) && p.s[p.i] == 'L' {
			p.i++ // Python 2's long
		}
		dims = append(dims, n)
		comma = p.eat(',')
	}
}

// npyFloat checks that h describes a C-order float array of the given
// rank (0 for any) and returns the size of its elements: 4 or 8.
func npyFloat(h npyHeader, rank int) (int, error) {
	var size int
	switch h.descr {
	case "<f4":
		size = 4
	case "<f8":
		size = 8
	case ">f4", ">f8":
		return 0, fmt.Errorf("big-endian dtype %q is not supported: want '<f4' or '<f8' (little-endian float32 or float64)", h.descr)
	default:
		return 0, fmt.Errorf("dtype %q is not supported: want '<f4' or '<f8' (little-endian float32 or float64)", h.descr)
	}
	if h.fortran {
		return 0, errors.New("fortran_order True (column-major) is not supported: save a C-order array (np.ascontiguousarray)")
	}
	if rank > 0 && len(h.shape) != rank {
		return 0, fmt.Errorf("want a %d-D array, found shape %s", rank, shapeString(h.shape))
	}
	return size, nil
}

// count returns the number of elements of shape, or an error when the data
// would be larger than 2^62 bytes.
func count(shape []int, size int) (int64, error) {
	n := int64(1)
	for _, d := range shape {
		if d != 0 && n > (1<<62)/int64(size)/int64(d) {
			return 0, fmt.Errorf("shape %s is too large", shapeString(shape))
		}
		n *= int64(d)
	}
	return n, nil
}

// shapeString writes a shape as Python does: (2, 3), (5,), ().
func shapeString(shape []int) string {
	parts := make([]string, len(shape))
	for i, d := range shape {
		parts[i] = strconv.Itoa(d)
	}
	if len(shape) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// npyHeaderBytes encodes a version 1.0 (or 2.0, when long) header as numpy
// does: padded with spaces so the data starts at a multiple of 64 bytes.
func npyHeaderBytes(descr string, fortran bool, shape []int) []byte {
	f := "False"
	if fortran {
		f = "True"
	}
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': %s, 'shape': %s, }", descr, f, shapeString(shape))
	for _, major := range []int{1, 2} {
		pre := 10
		if major == 2 {
			pre = 12
		}
		total := (pre + len(dict) + 1 + 63) / 64 * 64
		hlen := total - pre
		if major == 1 && hlen > math.MaxUint16 {
			continue
		}
		out := make([]byte, 0, total)
		out = append(out, npyMagic...)
		out = append(out, byte(major), 0)
		if major == 1 {
			out = binary.LittleEndian.AppendUint16(out, uint16(hlen))
		} else {
			out = binary.LittleEndian.AppendUint32(out, uint32(hlen))
		}
		out = append(out, dict...)
		for len(out) < total-1 {
			out = append(out, ' ')
		}
		return append(out, '\n')
	}
	panic("unreachable")
}

// WriteNPY writes data as a C-order little-endian float32 ('<f4') .npy
// array of the given shape, which numpy.load reads back. The shape's
// product must equal len(data).
func WriteNPY(w io.Writer, shape []int, data []float32) error {
	n := 1
	for _, d := range shape {
		if d < 0 {
			return fmt.Errorf("captioning: WriteNPY: negative dimension in shape %v", shape)
		}
		if d != 0 && n > math.MaxInt/d {
			return fmt.Errorf("captioning: WriteNPY: shape %v is too large", shape)
		}
		n *= d
	}
	if n != len(data) {
		return fmt.Errorf("captioning: WriteNPY: shape %s holds %d values, data has %d", shapeString(shape), n, len(data))
	}
	bw := bufio.NewWriter(w)
	bw.Write(npyHeaderBytes("<f4", false, shape))
	var b [4]byte
	for _, v := range data {
		binary.LittleEndian.PutUint32(b[:], math.Float32bits(v))
		bw.Write(b[:])
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("captioning: WriteNPY: %w", err)
	}
	return nil
}

// ReadNPY reads a whole C-order '<f4' or '<f8' .npy array of any shape
// (float64 values are converted to float32). Data past the array's end is
// an error, as is a short read.
func ReadNPY(r io.Reader) (shape []int, data []float32, err error) {
	br := bufio.NewReader(r)
	h, err := readNPYHeader(br)
	if err != nil {
		return nil, nil, fmt.Errorf("captioning: npy: %w", err)
	}
	size, err := npyFloat(h, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("captioning: npy: %w", err)
	}
	n, err := count(h.shape, size)
	if err != nil {
		return nil, nil, fmt.Errorf("captioning: npy: %w", err)
	}
	data = make([]float32, 0, min(n, 1<<20)) // grows as the data is really there
	buf := make([]byte, 64*1024)
	for left := n * int64(size); left > 0; {
		chunk := buf[:min(int64(len(buf)), left)]
		if got, err := io.ReadFull(br, chunk); err != nil {
			return nil, nil, fmt.Errorf("captioning: npy: truncated data: shape %s holds %d values, the file ends after %d",
				shapeString(h.shape), n, int64(len(data))+int64(got/size))
		}
		data = decodeFloats(data, chunk, size)
		left -= int64(len(chunk))
	}
	if _, err := br.ReadByte(); err == nil {
		return nil, nil, fmt.Errorf("captioning: npy: data continues past the %d values of shape %s", n, shapeString(h.shape))
	}
	return h.shape, data, nil
}

// decodeFloats appends the little-endian floats of b (4 or 8 bytes each) to dst.
func decodeFloats(dst []float32, b []byte, size int) []float32 {
	if size == 4 {
		for i := 0; i+4 <= len(b); i += 4 {
			dst = append(dst, math.Float32frombits(binary.LittleEndian.Uint32(b[i:])))
		}
		return dst
	}
	for i := 0; i+8 <= len(b); i += 8 {
		dst = append(dst, float32(math.Float64frombits(binary.LittleEndian.Uint64(b[i:]))))
	}
	return dst
}
