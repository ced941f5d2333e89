package captioning

import (
	"bytes"
	"encoding/binary"
	"math"
	"reflect"
	"strings"
	"testing"
)

// npyBytes builds a .npy file by hand: version major.0, the header dict
// text as given (a '\n' is appended), then the data bytes.
func npyBytes(major int, dict string, data []byte) []byte {
	var b bytes.Buffer
	b.WriteString("\x93NUMPY")
	b.WriteByte(byte(major))
	b.WriteByte(0)
	h := dict + "\n"
	if major == 1 {
		binary.Write(&b, binary.LittleEndian, uint16(len(h)))
	} else {
		binary.Write(&b, binary.LittleEndian, uint32(len(h)))
	}
	b.WriteString(h)
	b.Write(data)
	return b.Bytes()
}

func f64Bytes(vs ...float64) []byte {
	b := make([]byte, 0, 8*len(vs))
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	return b
}

func TestNPYHeader(t *testing.T) {
	tests := []struct {
		name    string
		file    []byte
		descr   string
		fortran bool
		shape   []int
	}{
		{"numpy's own", npyBytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3, 4), }", nil), "<f4", false, []int{2, 3, 4}},
		{"keys in any order, double quotes, no trailing comma", npyBytes(1, `{"shape": (5,), "fortran_order": True, "descr": "<f8"}`, nil), "<f8", true, []int{5}},
		{"scalar", npyBytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': ()}", nil), "<f4", false, []int{}},
		{"python 2 longs", npyBytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3L, 4L), }", nil), "<f4", false, []int{3, 4}},
		{"version 2.0", npyBytes(2, "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2, 3), }", nil), "<f4", false, []int{1, 2, 3}},
		{"version 3.0, spaces everywhere", npyBytes(3, "  { 'descr' : '<f4' , 'fortran_order' : False , 'shape' : ( 1 , 2 , ) , }   ", nil), "<f4", false, []int{1, 2}},
		{"any dtype parses", npyBytes(1, "{'descr': '|u1', 'fortran_order': False, 'shape': (0, 2)}", nil), "|u1", false, []int{0, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := readNPYHeader(bytes.NewReader(tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if h.descr != tt.descr || h.fortran != tt.fortran || !reflect.DeepEqual(h.shape, tt.shape) || h.offset != int64(len(tt.file)) {
				t.Errorf("got %+v, want descr %q fortran %v shape %v offset %d", h, tt.descr, tt.fortran, tt.shape, len(tt.file))
			}
		})
	}
}

func TestNPYHeaderErrors(t *testing.T) {
	ok := "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }"
	tests := []struct {
		name string
		file []byte
		want string
	}{
		{"empty", nil, "not a .npy file"},
		{"no magic", []byte("PK\x03\x04 a zip file"), "not a .npy file"},
		{"version 4", append([]byte("\x93NUMPY\x04\x00"), 0, 0), "unsupported format version 4.0"},
		{"short length", []byte("\x93NUMPY\x01\x00\x10"), "truncated header"},
		{"short header", []byte("\x93NUMPY\x01\x00\x40\x00{'descr'"), "truncated header: want 64 bytes"},
		{"huge header", []byte("\x93NUMPY\x02\x00\xff\xff\xff\xff"), "header length 4294967295 is larger"},
		{"not a dict", npyBytes(1, "['descr']", nil), "want a dict"},
		{"missing key", npyBytes(1, "{'descr': '<f4', 'shape': (2,)}", nil), `no "fortran_order" key`},
		{"extra key", npyBytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", nil), `unexpected key "x"`},
		{"repeated key", npyBytes(1, "{'descr': '<f4', 'descr': '<f4'}", nil), `key "descr" repeated`},
		{"(n) is not a tuple", npyBytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2)}", nil), "(n) is not a tuple"},
		{"negative dimension", npyBytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (-2,)}", nil), "want a non-negative integer"},
		{"huge dimension", npyBytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}", nil), "too large"},
		{"list shape", npyBytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': [2]}", nil), "want a tuple"},
		{"lowercase false", npyBytes(1, "{'descr': '<f4', 'fortran_order': false, 'shape': (2,)}", nil), "want True or False"},
		{"Falsey", npyBytes(1, "{'descr': '<f4', 'fortran_order': Falsey, 'shape': (2,)}", nil), "want True or False"},
		{"structured dtype", npyBytes(1, "{'descr': [('x', '<f4')], 'fortran_order': False, 'shape': (2,)}", nil), "structured dtypes"},
		{"unterminated string", npyBytes(1, "{'descr': '<f4}", nil), "unterminated string"},
		{"text after the dict", npyBytes(1, ok+" x", nil), "text after the dict"},
		{"missing comma", npyBytes(1, "{'descr': '<f4' 'fortran_order': False}", nil), "want ',' or '}'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := readNPYHeader(bytes.NewReader(tt.file))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestNPYDtypeErrors(t *testing.T) {
	tests := []struct {
		dict string
		want string
	}{
		{"{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3, 4)}", `big-endian dtype ">f4" is not supported`},
		{"{'descr': '<i8', 'fortran_order': False, 'shape': (2, 3, 4)}", `dtype "<i8" is not supported: want '<f4' or '<f8'`},
		{"{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3, 4)}", "fortran_order True (column-major) is not supported"},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)}", "want a 3-D array, found shape (2, 3)"},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}", "want a 3-D array, found shape (2,)"},
	}
	for _, tt := range tests {
		h, err := readNPYHeader(bytes.NewReader(npyBytes(1, tt.dict, nil)))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := npyFloat(h, 3); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want an error containing %q", tt.dict, err, tt.want)
		}
	}
}

func TestWriteNPY(t *testing.T) {
	// The header numpy.save writes for a float32 array of shape (2, 3, 4):
	// the dict, padded with spaces to 128 bytes in all, ended by '\n'.
	var b bytes.Buffer
	data := make([]float32, 24)
	for i := range data {
		data[i] = float32(i) / 4
	}
	if err := WriteNPY(&b, []int{2, 3, 4}, data); err != nil {
		t.Fatal(err)
	}
	dict := "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3, 4), }"
	want := "\x93NUMPY\x01\x00\x76\x00" + dict + strings.Repeat(" ", 128-10-len(dict)-1) + "\n"
	if got := b.String()[:128]; got != want {
		t.Errorf("header\n got %q\nwant %q", got, want)
	}
	if b.Len() != 128+24*4 {
		t.Errorf("file is %d bytes, want 128 + 96", b.Len())
	}
	// The value 0.25 (data[1]) is 0x3e800000, little-endian.
	if got := b.Bytes()[132:136]; !bytes.Equal(got, []byte{0, 0, 0x80, 0x3e}) {
		t.Errorf("data[1] is % x, want 00 00 80 3e", got)
	}
}

func TestNPYRoundTrip(t *testing.T) {
	for _, shape := range [][]int{{}, {0}, {5}, {2, 3}, {2, 3, 4}, {1, 0, 7}, {3, 1, 1, 2}} {
		n := 1
		for _, d := range shape {
			n *= d
		}
		data := make([]float32, n)
		for i := range data {
			data[i] = float32(i)*1.5 - 3
		}
		var b bytes.Buffer
		if err := WriteNPY(&b, shape, data); err != nil {
			t.Fatal(err)
		}
		gotShape, got, err := ReadNPY(&b)
		if err != nil {
			t.Fatalf("%v: %v", shape, err)
		}
		if !reflect.DeepEqual(gotShape, shape) || len(got) != n || n > 0 && !reflect.DeepEqual(got, data) {
			t.Errorf("%v: read back shape %v and %d values", shape, gotShape, len(got))
		}
	}
}

func TestReadNPY(t *testing.T) {
	f8 := npyBytes(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (3,)}", f64Bytes(0.5, -2, 1e10))
	shape, data, err := ReadNPY(bytes.NewReader(f8))
	if err != nil || !reflect.DeepEqual(shape, []int{3}) || !reflect.DeepEqual(data, []float32{0.5, -2, 1e10}) {
		t.Errorf("float64: got %v, %v, %v; want [3], [0.5 -2 1e10]", shape, data, err)
	}
	errs := []struct {
		name string
		file []byte
		want string
	}{
		{"truncated", npyBytes(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (3,)}", f64Bytes(1, 2)),
			"truncated data: shape (3,) holds 3 values, the file ends after 2"},
		{"trailing", npyBytes(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1,)}", f64Bytes(1, 2)),
			"data continues past the 1 values"},
		{"dtype", npyBytes(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (1,)}", nil), `dtype "<i4"`},
		{"absurd shape", npyBytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (9223372036854775807, 4)}", nil), "too large"},
	}
	for _, tt := range errs {
		if _, _, err := ReadNPY(bytes.NewReader(tt.file)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
	if err := WriteNPY(&bytes.Buffer{}, []int{2, 2}, make([]float32, 3)); err == nil || !strings.Contains(err.Error(), "shape (2, 2) holds 4 values, data has 3") {
		t.Errorf("WriteNPY with a wrong shape: %v", err)
	}
}

// FuzzNPYHeader feeds arbitrary bytes to the header reader: it must never
// panic, and a header it accepts with a supported dtype must survive being
// written back by npyHeaderBytes and read again.
func FuzzNPYHeader(f *testing.F) {
	f.Add(npyBytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3, 4), }", nil))
	f.Add(npyBytes(2, `{"shape": (5,), "fortran_order": True, "descr": "<f8"}`, nil))
	f.Add(npyBytes(3, "{'descr': '<f4', 'fortran_order': False, 'shape': (3L, 4L)}", nil))
	f.Add(npyBytes(1, "{'descr': [('x', '<f4')], 'fortran_order': False, 'shape': ()}", nil))
	f.Add([]byte("\x93NUMPY\x02\x00\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := readNPYHeader(bytes.NewReader(b))
		if err != nil {
			return
		}
		if h.offset > int64(len(b)) {
			t.Fatalf("offset %d past the %d bytes read", h.offset, len(b))
		}
		for _, d := range h.shape {
			if d < 0 {
				t.Fatalf("negative dimension in %v", h.shape)
			}
		}
		if _, err := npyFloat(h, 0); err != nil {
			return
		}
		again, err := readNPYHeader(bytes.NewReader(npyHeaderBytes(h.descr, h.fortran, h.shape)))
		if err != nil {
			t.Fatalf("re-encoded %+v: %v", h, err)
		}
		if again.descr != h.descr || again.fortran != h.fortran || !reflect.DeepEqual(again.shape, h.shape) {
			t.Fatalf("re-encoded %+v, read back %+v", h, again)
		}
	})
}
