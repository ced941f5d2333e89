package seq2seq

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/nlpodyssey/safetensors"

	"github.com/attnzoo/attnzoo/internal/atomicfile"
)

// Tensor is one named array of a safetensors file: F32 or F64 holds its
// entries, row-major.
type Tensor struct {
	Name  string
	Shape []int
	F32   []float32
	F64   []float64
}

// Float64s returns a copy of the entries as float64 (exact for float32).
func (t Tensor) Float64s() []float64 {
	if t.F64 != nil {
		return append([]float64(nil), t.F64...)
	}
	out := make([]float64, len(t.F32))
	for i, x := range t.F32 {
		out[i] = float64(x)
	}
	return out
}

// view adapts a Tensor to the safetensors writer, which asks for one
// tensor's bytes at a time: the little-endian bytes are made then, so a
// file is written holding one tensor's copy in memory, not the model's.
type view struct{ t Tensor }

func (v view) DType() safetensors.DType {
	if v.t.F32 != nil {
		return safetensors.F32
	}
	return safetensors.F64
}

func (v view) Shape() []uint64 {
	s := make([]uint64, len(v.t.Shape))
	for i, d := range v.t.Shape {
		s[i] = uint64(d)
	}
	return s
}

func (v view) DataLen() uint64 {
	if v.t.F32 != nil {
		return 4 * uint64(len(v.t.F32))
	}
	return 8 * uint64(len(v.t.F64))
}

func (v view) Data() []byte {
	b := make([]byte, 0, v.DataLen())
	if v.t.F32 != nil {
		for _, x := range v.t.F32 {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
		}
		return b
	}
	for _, x := range v.t.F64 {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return b
}

// WriteTensors writes ts, with the string pairs meta as the header's
// __metadata__, to a safetensors file at path, atomically: 8 bytes of
// little-endian header length, the JSON header giving each tensor's dtype
// ("F32", "F64"), shape and [begin, end) byte offsets into the data, then
// the data.
func WriteTensors(path string, ts []Tensor, meta map[string]string) error {
	_, err := writeTensors(path, ts, meta)
	return err
}

// writeTensors is WriteTensors, returning the file's SHA-256 in hex.
func writeTensors(path string, ts []Tensor, meta map[string]string) (string, error) {
	views := make(map[string]view, len(ts))
	for _, t := range ts {
		if _, dup := views[t.Name]; dup {
			return "", fmt.Errorf("%s: tensor %s given twice", path, t.Name)
		}
		n := 1
		for _, d := range t.Shape {
			n *= d
		}
		if (t.F32 == nil) == (t.F64 == nil) || len(t.F32)+len(t.F64) != n {
			return "", fmt.Errorf("%s: tensor %s: %d float32 and %d float64 entries for shape %v", path, t.Name, len(t.F32), len(t.F64), t.Shape)
		}
		views[t.Name] = view{t}
	}
	h := sha256.New()
	err := atomicfile.WriteFunc(path, func(w io.Writer) error {
		return safetensors.SerializeToWriter(views, meta, io.MultiWriter(w, h))
	})
	return hex.EncodeToString(h.Sum(nil)), err
}

// ReadTensors reads a safetensors file of F32 and F64 tensors by name,
// with its __metadata__.
func ReadTensors(path string) (map[string]Tensor, map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	return parseTensors(path, data)
}

// parseTensors is ReadTensors of the file path's content data.
func parseTensors(path string, data []byte) (map[string]Tensor, map[string]string, error) {
	st, err := safetensors.Deserialize(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	_, md, _ := safetensors.ReadMetadata(data)
	out := map[string]Tensor{}
	for _, nt := range st.Tensors() {
		v := nt.TensorView
		t := Tensor{Name: nt.Name}
		for _, d := range v.Shape() {
			t.Shape = append(t.Shape, int(d))
		}
		b := v.Data()
		switch v.DType() {
		case safetensors.F32:
			t.F32 = make([]float32, len(b)/4)
			for i := range t.F32 {
				t.F32[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
			}
		case safetensors.F64:
			t.F64 = make([]float64, len(b)/8)
			for i := range t.F64 {
				t.F64[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
			}
		default:
			return nil, nil, fmt.Errorf("%s: tensor %s has dtype %s; only F32 and F64 are read", path, nt.Name, v.DType())
		}
		out[nt.Name] = t
	}
	return out, md.Metadata(), nil
}
