package tbevents

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"
)

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestMaskedCRC checks CRC-32C against its standard check value and the
// mask by hand. crc32c("123456789") = 0xE3069283 (the catalogue's check
// value for CRC-32/ISCSI). Masking it:
//
//	crc >> 15         = 0xE306<<1 | bit 15 of 0x9283 (1)  = 0x0001C60D
//	crc << 17 mod 2³² = (0x9283 & 0x7FFF) << 17 = 0x1283<<17 = 0x25060000
//	rotated           = 0x2507C60D
//	+ 0xA282EAD8      : 0xC60D+0xEAD8 = 0x1B0E5 → 0xB0E5 carry 1;
//	                    0x2507+0xA282+1 = 0xC78A   → 0xC78AB0E5
func TestMaskedCRC(t *testing.T) {
	if got := maskedCRC([]byte("123456789")); got != 0xC78AB0E5 {
		t.Errorf("maskedCRC(123456789) = %#x, want 0xC78AB0E5", got)
	}
	if got := mask(0xE3069283); got != 0xC78AB0E5 {
		t.Errorf("mask(0xE3069283) = %#x, want 0xC78AB0E5", got)
	}
}

// tinyEvent is Event{wall_time: 1.5, step: 2, summary: {value: [{tag: "a",
// simple_value: 0.5}]}} encoded by hand:
//
//	09                       field 1 (wall_time), wire 1 (fixed64): 1<<3|1
//	00 00 00 00 00 00 F8 3F  1.5 = 0x3FF8000000000000, little-endian
//	10 02                    field 2 (step), wire 0: 2<<3|0; varint 2
//	2A 0A                    field 5 (summary), wire 2: 5<<3|2; 10 bytes
//	  0A 08                  Summary field 1 (value), wire 2; 8 bytes
//	    0A 01 61             Value field 1 (tag), wire 2; 1 byte "a"
//	    15 00 00 00 3F       Value field 2 (simple_value), wire 5: 2<<3|5;
//	                         0.5f = 0x3F000000, little-endian
const tinyEvent = "09 0000000000 00F83F 1002 2A0A 0A08 0A0161 150000003F"

func TestEventEncoding(t *testing.T) {
	want := unhex(t, tinyEvent)
	if got := summaryEvent(1.5, 2, scalarValue("a", 0.5)); !bytes.Equal(got, want) {
		t.Errorf("scalar event\n got % x\nwant % x", got, want)
	}
	// file_version: 09 <0.0 as 8 bytes> (wall_time 0 still written: we
	// write it always), no step (0), 1A 0D "brain.Event:2" (field 3, wire 2,
	// 13 bytes)
	want = append(unhex(t, "09 0000000000000000 1A0D"), "brain.Event:2"...)
	if got := fileVersionEvent(0); !bytes.Equal(got, want) {
		t.Errorf("file version event\n got % x\nwant % x", got, want)
	}
	// session_log START at step 300: 300 = 0b10_0101100 → varint AC 02;
	// 3A 02 (field 7, wire 2, 2 bytes) 08 01 (status = START)
	want = unhex(t, "09 0000000000000000 10AC02 3A02 0801")
	if got := sessionStartEvent(0, 300); !bytes.Equal(got, want) {
		t.Errorf("session start event\n got % x\nwant % x", got, want)
	}
	// an image value: tag "i", Image{height 2, width 3, colorspace 3,
	// encoded "P"}: 0A 01 69, 22 09 (field 4, wire 2, 9 bytes =
	// 2+2+2+3): 08 02 | 10 03 | 18 03 | 22 01 50
	want = unhex(t, "0A0169 2209 0802 1003 1803 220150")
	if got := imageValue("i", 2, 3, 3, []byte("P")); !bytes.Equal(got, want) {
		t.Errorf("image value\n got % x\nwant % x", got, want)
	}
	// a zero scalar is written (simple_value is in a oneof): 15 00000000
	want = unhex(t, "0A0161 1500000000")
	if got := scalarValue("a", 0); !bytes.Equal(got, want) {
		t.Errorf("zero scalar value\n got % x\nwant % x", got, want)
	}
}

// TestRecordFraming frames tinyEvent (23 bytes). The CRCs come from an
// independent tool: Debian's python3-crcmod 1.7+dfsg-3+b3,
// crcmod.predefined.mkCrcFun("crc-32c"), masked in Python:
// crc(17 00 00 00 00 00 00 00) = 0xF207BE3A → masked 0x1EF8CEE7;
// crc(tinyEvent) = 0x86512D17 → masked 0xFCB1F77A.
func TestRecordFraming(t *testing.T) {
	ev := unhex(t, tinyEvent)
	want := append(unhex(t, "1700000000000000 E7CEF81E"), ev...)
	want = append(want, unhex(t, "7AF7B1FC")...)
	if got := appendRecord(nil, ev); !bytes.Equal(got, want) {
		t.Errorf("record\n got % x\nwant % x", got, want)
	}
	// appending to a non-empty buffer frames only the new record
	if got := appendRecord([]byte{0xFF}, ev); !bytes.Equal(got[1:], want) {
		t.Errorf("record after a byte\n got % x\nwant % x", got[1:], want)
	}
}
