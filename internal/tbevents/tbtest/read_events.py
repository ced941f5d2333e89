#!/usr/bin/env python3
"""An independent reader of TensorBoard event files, for the Go tests.

Shares nothing with the Go writer: it reads the TFRecord framing itself,
checks both masked CRC-32C of every record with a CRC-32C written here
(bitwise, from the Castagnoli polynomial; cross-checked against crcmod's
predefined 'crc-32c' when python3-crcmod is installed), and decodes each
Event with python3-protobuf from a descriptor built here with the field
numbers of tensorflow/core/util/event.proto and
tensorflow/core/framework/summary.proto. Each record must decode with no
unknown field and re-encode to the same bytes (canonical proto3). Images
are checked as PNG files: the signature, the IHDR size against the
Image's height and width, and the inflated IDAT size against the
colorspace's channel count.

usage: read_events.py FILE...
Prints one JSON object: {"files": [{"path", "events": [...], "tail"}]}
where tail counts the bytes of a record cut short at the end of a file
(a killed writer). Exits 1 with a message on any other defect.
"""

import json
import struct
import sys
import zlib

from google.protobuf import descriptor_pb2, descriptor_pool

try:
    from google.protobuf import message_factory
except ImportError:  # pragma: no cover
    message_factory = None


def crc32c(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


# The standard check value of CRC-32C (Castagnoli): crc("123456789").
assert crc32c(b"123456789") == 0xE3069283, "crc32c self-check"
try:
    import crcmod.predefined

    _other = crcmod.predefined.mkCrcFun("crc-32c")
    for _probe in (b"", b"a", b"123456789", bytes(range(256))):
        assert _other(_probe) == crc32c(_probe), "crc32c disagrees with crcmod"
    CRC_CHECK = "crc32c written here, agrees with crcmod"
except ImportError:
    CRC_CHECK = "crc32c written here"


def masked(crc):
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


F = descriptor_pb2.FieldDescriptorProto


def field(msg, name, number, ftype, type_name=None, label=F.LABEL_OPTIONAL, oneof=None):
    f = msg.field.add(name=name, number=number, type=ftype, label=label)
    if type_name:
        f.type_name = type_name
    if oneof is not None:
        f.oneof_index = oneof
    return f


def build_classes():
    fd = descriptor_pb2.FileDescriptorProto(name="attnzoo_tb_check.proto", package="tensorflow", syntax="proto3")

    summary = fd.message_type.add(name="Summary")
    image = summary.nested_type.add(name="Image")
    field(image, "height", 1, F.TYPE_INT32)
    field(image, "width", 2, F.TYPE_INT32)
    field(image, "colorspace", 3, F.TYPE_INT32)
    field(image, "encoded_image_string", 4, F.TYPE_BYTES)
    value = summary.nested_type.add(name="Value")
    value.oneof_decl.add(name="value")
    field(value, "tag", 1, F.TYPE_STRING)
    field(value, "simple_value", 2, F.TYPE_FLOAT, oneof=0)
    field(value, "image", 4, F.TYPE_MESSAGE, ".tensorflow.Summary.Image", oneof=0)
    field(summary, "value", 1, F.TYPE_MESSAGE, ".tensorflow.Summary.Value", label=F.LABEL_REPEATED)

    session = fd.message_type.add(name="SessionLog")
    status = session.enum_type.add(name="SessionStatus")
    for i, n in enumerate(["STATUS_UNSPECIFIED", "START", "STOP", "CHECKPOINT"]):
        status.value.add(name=n, number=i)
    field(session, "status", 1, F.TYPE_ENUM, ".tensorflow.SessionLog.SessionStatus")
    field(session, "checkpoint_path", 2, F.TYPE_STRING)
    field(session, "msg", 3, F.TYPE_STRING)

    event = fd.message_type.add(name="Event")
    event.oneof_decl.add(name="what")
    field(event, "wall_time", 1, F.TYPE_DOUBLE)
    field(event, "step", 2, F.TYPE_INT64)
    field(event, "file_version", 3, F.TYPE_STRING, oneof=0)
    field(event, "summary", 5, F.TYPE_MESSAGE, ".tensorflow.Summary", oneof=0)
    field(event, "session_log", 7, F.TYPE_MESSAGE, ".tensorflow.SessionLog", oneof=0)

    pool = descriptor_pool.DescriptorPool()
    pool.Add(fd)
    desc = pool.FindMessageTypeByName("tensorflow.Event")
    if message_factory is not None and hasattr(message_factory, "GetMessageClass"):
        return message_factory.GetMessageClass(desc)
    return message_factory.MessageFactory(pool).GetPrototype(desc)


Event = build_classes()


def fail(path, offset, msg):
    sys.stderr.write("read_events.py: %s: record at byte %d: %s\n" % (path, offset, msg))
    sys.exit(1)


def check_png(path, off, tag, img):
    data = img.encoded_image_string
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail(path, off, "image %s: not a PNG file" % tag)
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        (crc,) = struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])
        if zlib.crc32(kind + body) != crc:
            fail(path, off, "image %s: PNG chunk %r: bad CRC" % (tag, kind))
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    width, height, depth, ctype, _, _, interlace = ihdr
    channels = {0: 1, 2: 3, 4: 2, 6: 4}[ctype]
    if (width, height) != (img.width, img.height):
        fail(path, off, "image %s: PNG is %dx%d, Image says %dx%d" % (tag, width, height, img.width, img.height))
    if channels != img.colorspace:
        fail(path, off, "image %s: PNG has %d channels, Image colorspace is %d" % (tag, channels, img.colorspace))
    if depth != 8 or interlace != 0:
        fail(path, off, "image %s: PNG bit depth %d interlace %d, want 8 and 0" % (tag, depth, interlace))
    raw = zlib.decompress(idat)
    if len(raw) != height * (1 + width * channels):
        fail(path, off, "image %s: %d pixel bytes, want %d" % (tag, len(raw), height * (1 + width * channels)))
    return {"height": img.height, "width": img.width, "colorspace": img.colorspace, "png_bytes": len(data)}


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    events, off = [], 0
    while off < len(data):
        if len(data) - off < 12:
            break
        header = data[off:off + 8]
        (n,) = struct.unpack("<Q", header)
        (hcrc,) = struct.unpack("<I", data[off + 8:off + 12])
        if masked(crc32c(header)) != hcrc:
            fail(path, off, "length CRC %#x, want %#x" % (hcrc, masked(crc32c(header))))
        if len(data) - off < 12 + n + 4:
            break
        body = data[off + 12:off + 12 + n]
        (dcrc,) = struct.unpack("<I", data[off + 12 + n:off + 16 + n])
        if masked(crc32c(body)) != dcrc:
            fail(path, off, "data CRC %#x, want %#x" % (dcrc, masked(crc32c(body))))
        ev = Event()
        ev.ParseFromString(body)
        ev.DiscardUnknownFields()
        if ev.SerializeToString() != body:
            fail(path, off, "the Event has unknown fields or is not canonical proto3")
        out = {"wall_time": ev.wall_time, "step": ev.step}
        what = ev.WhichOneof("what")
        if what == "file_version":
            out["file_version"] = ev.file_version
        elif what == "session_log":
            out["session_log"] = ev.session_log.SessionStatus.Name(ev.session_log.status)
        elif what == "summary":
            values = []
            for v in ev.summary.value:
                kind = v.WhichOneof("value")
                if kind == "simple_value":
                    values.append({"tag": v.tag, "simple_value": v.simple_value})
                elif kind == "image":
                    values.append({"tag": v.tag, "image": check_png(path, off, v.tag, v.image)})
                else:
                    fail(path, off, "value %s holds no simple_value or image" % v.tag)
            out["summary"] = values
        else:
            fail(path, off, "the Event holds nothing")
        events.append(out)
        off += 16 + n
    return {"path": path, "events": events, "tail": len(data) - off}


def main():
    if len(sys.argv) < 2:
        sys.stderr.write(__doc__)
        sys.exit(2)
    json.dump({"crc": CRC_CHECK, "files": [read(p) for p in sys.argv[1:]]}, sys.stdout)


if __name__ == "__main__":
    main()
