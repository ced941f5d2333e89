"""Writes bpe-craft.model (README.md): two pieces appended to a model
spm_train wrote (a protobuf parser appends a repeated field's values)."""
import struct

def piece(text, score, typ):
    b = text.encode()
    body = b"\x0a" + bytes([len(b)]) + b + b"\x15" + struct.pack("<f", score)
    if typ != 1:
        body += b"\x18" + bytes([typ])
    return b"\x0a" + bytes([len(body)]) + body

def craft(src, dst, pieces):
    data = open(src, "rb").read()
    for p in pieces:
        data += piece(*p)
    open(dst, "wb").write(data)

craft("../spm-bpe-identity.model", "bpe-craft.model", [("éä", 10.0, 5), ("éäx", 9.0, 1)])
