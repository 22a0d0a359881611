"""Arrays packed into one compressed byte string, the same bytes for the same arrays (no time stamp, no pickle).

A header (JSON: each array's name, dtype and shape) then the arrays' bytes in order, compressed with zlib.
"""
from __future__ import annotations

import json
import struct
import zlib

import numpy as np

# zlib's fastest level: the packed rows are mostly doubles, which level 6 packs only 7% smaller (a hundred runs'
# figure rows: 5.8 MB against 5.4 MB) at 1.6 times the CPU, on every new run's set
LEVEL = 1


def pack(arrays: dict[str, np.ndarray], level: int = LEVEL) -> bytes:
    arrays = {name: np.asarray(a, order="C") for name, a in arrays.items()}  # 0-d kept 0-d
    header = json.dumps([[name, a.dtype.str, list(a.shape)] for name, a in arrays.items()],
                        separators=(",", ":")).encode()
    body = b"".join(a.tobytes() for a in arrays.values())
    return zlib.compress(struct.pack("<I", len(header)) + header + body, level)


def unpack(data) -> dict[str, np.ndarray]:
    raw = zlib.decompress(bytes(data))
    (length,) = struct.unpack_from("<I", raw)
    offset, out = 4 + length, {}
    for name, dtype, shape in json.loads(raw[4:offset]):
        dtype = np.dtype(dtype)
        count = int(np.prod(shape, dtype=np.int64))
        out[name] = np.frombuffer(raw, dtype=dtype, count=count, offset=offset).reshape(tuple(shape))  # () for 0-d
        offset += count * dtype.itemsize
    return out
