package tbevents

import (
	"encoding/binary"
	"math"
)

// The fields of tensorflow/core/util/event.proto and
// tensorflow/core/framework/summary.proto that this package writes
// (both proto3).
const (
	eventWallTime    = 1 // double
	eventStep        = 2 // int64
	eventFileVersion = 3 // string, oneof what
	eventSummary     = 5 // Summary, oneof what
	eventSessionLog  = 7 // SessionLog, oneof what

	sessionLogStatus = 1 // enum SessionStatus
	sessionStart     = 1 // SessionStatus START

	summaryValue = 1 // repeated Value

	valueTag         = 1 // string
	valueSimpleValue = 2 // float, oneof value
	valueImage       = 4 // Image, oneof value

	imageHeight     = 1 // int32
	imageWidth      = 2 // int32
	imageColorspace = 3 // int32: 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA
	imageEncoded    = 4 // bytes: the PNG file
)

// Wire types.
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireFixed32 = 5
)

func appendKey(b []byte, field, wire int) []byte {
	return binary.AppendUvarint(b, uint64(field)<<3|uint64(wire))
}

// appendVarint appends a varint field; proto3 leaves out zero scalars
// outside a oneof, so callers skip them.
func appendVarint(b []byte, field int, v uint64) []byte {
	return binary.AppendUvarint(appendKey(b, field, wireVarint), v)
}

func appendDouble(b []byte, field int, v float64) []byte {
	return binary.LittleEndian.AppendUint64(appendKey(b, field, wireFixed64), math.Float64bits(v))
}

func appendFloat(b []byte, field int, v float32) []byte {
	return binary.LittleEndian.AppendUint32(appendKey(b, field, wireFixed32), math.Float32bits(v))
}

func appendBytes(b []byte, field int, v []byte) []byte {
	b = binary.AppendUvarint(appendKey(b, field, wireBytes), uint64(len(v)))
	return append(b, v...)
}

// eventHeader is an Event's wall_time and step (step 0 left out, as
// proto3 does).
func eventHeader(wall float64, step int64) []byte {
	b := appendDouble(nil, eventWallTime, wall)
	if step != 0 {
		b = appendVarint(b, eventStep, uint64(step)) // int64: two's complement, as protobuf
	}
	return b
}

// fileVersionEvent is the first event of a file.
func fileVersionEvent(wall float64) []byte {
	return appendBytes(eventHeader(wall, 0), eventFileVersion, []byte("brain.Event:2"))
}

// sessionStartEvent marks a restart at step: TensorBoard hides the events
// of this run at that step and later that an earlier process wrote
// (PyTorch's SummaryWriter(purge_step=step) writes the same).
func sessionStartEvent(wall float64, step int64) []byte {
	return appendBytes(eventHeader(wall, step), eventSessionLog, appendVarint(nil, sessionLogStatus, sessionStart))
}

// scalarValue is a Summary.Value holding simple_value (written even when
// 0: it is in a oneof).
func scalarValue(tag string, v float32) []byte {
	return appendFloat(appendBytes(nil, valueTag, []byte(tag)), valueSimpleValue, v)
}

// imageValue is a Summary.Value holding an Image.
func imageValue(tag string, height, width, colorspace int, png []byte) []byte {
	var img []byte
	for _, f := range []struct{ field, v int }{{imageHeight, height}, {imageWidth, width}, {imageColorspace, colorspace}} {
		if f.v != 0 {
			img = appendVarint(img, f.field, uint64(f.v))
		}
	}
	if len(png) > 0 {
		img = appendBytes(img, imageEncoded, png)
	}
	return appendBytes(appendBytes(nil, valueTag, []byte(tag)), valueImage, img)
}

// summaryEvent is an Event whose Summary holds the given Values.
func summaryEvent(wall float64, step int64, values ...[]byte) []byte {
	var s []byte
	for _, v := range values {
		s = appendBytes(s, summaryValue, v)
	}
	return appendBytes(eventHeader(wall, step), eventSummary, s)
}
