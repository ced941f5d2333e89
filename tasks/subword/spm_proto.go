package subword

import (
	"fmt"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// spmProto is what attnzoo reads of a serialized sentencepiece.ModelProto
// (sentencepiece_model.proto of SentencePiece 0.1.97), with the proto's
// defaults where a field is absent.
type spmProto struct {
	pieces []spmPiece
	// trainer_spec
	modelType    uint64 // 1 unigram, 2 bpe, 3 word, 4 char
	suffix       bool   // treat_whitespace_as_suffix
	byteFallback bool
	unkSurface   string
	// normalizer_spec
	charsmap                               []byte
	dummyPrefix, removeExtra, escapeSpaces bool
	// denormalizer_spec
	denormCharsmap []byte
}

// spmPiece is one ModelProto.SentencePiece.
type spmPiece struct {
	piece string
	score float32
	typ   pieceType
}

// pieceType is ModelProto.SentencePiece.Type.
type pieceType uint64

const (
	normalPiece  pieceType = 1
	unknownPiece pieceType = 2
	controlPiece pieceType = 3
	userPiece    pieceType = 4
	unusedPiece  pieceType = 5
	bytePiece    pieceType = 6
)

// Field numbers of sentencepiece_model.proto.
const (
	fModelPieces     = 1
	fModelTrainer    = 2
	fModelNormalizer = 3
	fModelDenorm     = 5

	fPiecePiece = 1
	fPieceScore = 2
	fPieceType  = 3

	fTrainerModelType    = 3
	fTrainerSuffix       = 24
	fTrainerByteFallback = 35
	fTrainerUnkSurface   = 44

	fNormCharsmap    = 2
	fNormDummyPrefix = 3
	fNormRemoveExtra = 4
	fNormEscape      = 5
)

// parseSPMProto reads a serialized ModelProto. Fields it does not use are
// skipped; a field that occurs twice takes its last value, and messages
// that occur twice merge, as protobuf parsers do.
func parseSPMProto(b []byte) (*spmProto, error) {
	m := &spmProto{modelType: 1, dummyPrefix: true, removeExtra: true, escapeSpaces: true, unkSurface: " \u2047 "}
	err := eachField(b, func(num protowire.Number, v fieldValue) error {
		switch num {
		case fModelPieces:
			p := spmPiece{typ: normalPiece}
			if err := v.message(func(num protowire.Number, v fieldValue) error {
				switch num {
				case fPiecePiece:
					return v.str(&p.piece)
				case fPieceScore:
					if v.typ != protowire.Fixed32Type {
						return fmt.Errorf("piece %d: score is not a float", len(m.pieces))
					}
					p.score = math.Float32frombits(uint32(v.num))
				case fPieceType:
					if err := v.varint((*uint64)(&p.typ)); err != nil {
						return err
					}
					if p.typ < normalPiece || p.typ > bytePiece {
						return fmt.Errorf("piece %d: unknown type %d", len(m.pieces), p.typ)
					}
				}
				return nil
			}); err != nil {
				return err
			}
			m.pieces = append(m.pieces, p)
		case fModelTrainer:
			return v.message(func(num protowire.Number, v fieldValue) error {
				switch num {
				case fTrainerModelType:
					return v.varint(&m.modelType)
				case fTrainerSuffix:
					return v.boolean(&m.suffix)
				case fTrainerByteFallback:
					return v.boolean(&m.byteFallback)
				case fTrainerUnkSurface:
					return v.str(&m.unkSurface)
				}
				return nil
			})
		case fModelNormalizer:
			return v.message(func(num protowire.Number, v fieldValue) error {
				switch num {
				case fNormCharsmap:
					return v.bytes(&m.charsmap)
				case fNormDummyPrefix:
					return v.boolean(&m.dummyPrefix)
				case fNormRemoveExtra:
					return v.boolean(&m.removeExtra)
				case fNormEscape:
					return v.boolean(&m.escapeSpaces)
				}
				return nil
			})
		case fModelDenorm:
			return v.message(func(num protowire.Number, v fieldValue) error {
				if num == fNormCharsmap {
					return v.bytes(&m.denormCharsmap)
				}
				return nil
			})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// fieldValue is one field's value as the wire holds it: num for varint
// and fixed fields, b for length-delimited ones.
type fieldValue struct {
	typ protowire.Type
	num uint64
	b   []byte
}

func (v fieldValue) varint(out *uint64) error {
	if v.typ != protowire.VarintType {
		return fmt.Errorf("wire type %d where a varint belongs", v.typ)
	}
	*out = v.num
	return nil
}

func (v fieldValue) boolean(out *bool) error {
	var n uint64
	err := v.varint(&n)
	*out = n != 0
	return err
}

func (v fieldValue) bytes(out *[]byte) error {
	if v.typ != protowire.BytesType {
		return fmt.Errorf("wire type %d where bytes belong", v.typ)
	}
	*out = v.b
	return nil
}

func (v fieldValue) str(out *string) error {
	var b []byte
	err := v.bytes(&b)
	*out = string(b)
	return err
}

func (v fieldValue) message(f func(protowire.Number, fieldValue) error) error {
	if v.typ != protowire.BytesType {
		return fmt.Errorf("wire type %d where a message belongs", v.typ)
	}
	return eachField(v.b, f)
}

// eachField calls f with each field of the serialized message b, in order.
func eachField(b []byte, f func(protowire.Number, fieldValue) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		v := fieldValue{typ: typ}
		switch typ {
		case protowire.VarintType:
			v.num, n = protowire.ConsumeVarint(b)
		case protowire.Fixed32Type:
			var x uint32
			x, n = protowire.ConsumeFixed32(b)
			v.num = uint64(x)
		case protowire.Fixed64Type:
			v.num, n = protowire.ConsumeFixed64(b)
		case protowire.BytesType:
			v.b, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		if err := f(num, v); err != nil {
			return err
		}
	}
	return nil
}
