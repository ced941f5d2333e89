package tbevents

import (
	"encoding/binary"
	"hash/crc32"
)

// castagnoli is CRC-32C's table (polynomial 0x1EDC6F41, reflected
// 0x82F63B78), the checksum TFRecord uses.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// maskDelta is what TFRecord adds to a rotated CRC.
const maskDelta = 0xa282ead8

// maskedCRC is TFRecord's masked CRC-32C of b: the CRC rotated right by 15
// bits plus maskDelta (mod 2³²), so that a CRC stored inside checksummed
// data does not checksum to a fixed value.
func maskedCRC(b []byte) uint32 {
	return mask(crc32.Checksum(b, castagnoli))
}

func mask(crc uint32) uint32 { return (crc>>15 | crc<<17) + maskDelta }

// appendRecord appends data framed as one TFRecord record:
//
//	uint64 length (little-endian)
//	uint32 masked CRC-32C of those 8 bytes
//	data
//	uint32 masked CRC-32C of data
func appendRecord(dst, data []byte) []byte {
	n := len(dst)
	dst = binary.LittleEndian.AppendUint64(dst, uint64(len(data)))
	dst = binary.LittleEndian.AppendUint32(dst, maskedCRC(dst[n:n+8]))
	dst = append(dst, data...)
	return binary.LittleEndian.AppendUint32(dst, maskedCRC(data))
}
