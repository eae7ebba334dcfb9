"""msgpack_enc.py — a small msgpack encoder for the shell tests' fixtures.

The python here has no msgpack module; this writes the subset the
artifacts use (nil, bool, int64, float64, str, array, map). Used as
    sys.path.insert(0, os.environ["PF_TESTS"]); from msgpack_enc import enc, put
"""
import os
import struct


def enc(o):
    if o is None: return b"\xc0"
    if o is True: return b"\xc3"
    if o is False: return b"\xc2"
    if isinstance(o, int): return b"\xd3" + struct.pack(">q", o)
    if isinstance(o, float): return b"\xcb" + struct.pack(">d", o)
    if isinstance(o, str):
        b = o.encode()
        return b"\xdb" + struct.pack(">I", len(b)) + b
    if isinstance(o, list):
        return b"\xdd" + struct.pack(">I", len(o)) + b"".join(enc(x) for x in o)
    if isinstance(o, dict):
        return b"\xdf" + struct.pack(">I", len(o)) + b"".join(enc(k) + enc(v) for k, v in o.items())
    raise TypeError(o)


def put(path, o):
    """Write o to path as msgpack, creating the folders it needs."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(enc(o))
