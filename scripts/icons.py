#!/usr/bin/env python3
"""Draws the app's icons, assets/icon-192.png and assets/icon-512.png, with the standard library
only: a blue rounded square (the light theme's accent) holding a conversation tree in white, a
prompt and the two replies below it. Each pixel's coverage of a shape is read from the shape's
signed distance at the pixel's centre, which smooths the edges.

    python3 scripts/icons.py     writes both icons (the same bytes each time)
"""
import math
import os
import struct
import zlib

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
ACCENT = (0x09, 0x69, 0xDA)
WHITE = (0xFF, 0xFF, 0xFF)

# The shapes, in a unit square: the tile, then the tree's rows (a dot and a bar each) and the
# lines that join the prompt to its replies. A capsule is a segment with a radius.
TILE_INSET = 0.04
TILE_RADIUS = 0.22
DOTS = [(0.29, 0.31, 0.07), (0.45, 0.51, 0.06), (0.45, 0.71, 0.06)]
CAPSULES = [
    # The rows' text, as bars.
    ((0.42, 0.31), (0.74, 0.31), 0.045),
    ((0.56, 0.51), (0.74, 0.51), 0.04),
    ((0.56, 0.71), (0.67, 0.71), 0.04),
    # The lines of the tree.
    ((0.29, 0.31), (0.29, 0.71), 0.018),
    ((0.29, 0.51), (0.45, 0.51), 0.018),
    ((0.29, 0.71), (0.45, 0.71), 0.018),
]


def rounded_square(x, y):
    """Signed distance to the tile (negative inside)."""
    half = 0.5 - TILE_INSET - TILE_RADIUS
    qx = abs(x - 0.5) - half
    qy = abs(y - 0.5) - half
    outside = math.hypot(max(qx, 0.0), max(qy, 0.0))
    return outside + min(max(qx, qy), 0.0) - TILE_RADIUS


def capsule(x, y, a, b, radius):
    """Signed distance to the segment a–b widened by `radius`."""
    ax, ay = a
    bx, by = b
    dx, dy = bx - ax, by - ay
    length = dx * dx + dy * dy
    t = 0.0 if length == 0 else max(0.0, min(1.0, ((x - ax) * dx + (y - ay) * dy) / length))
    return math.hypot(x - ax - t * dx, y - ay - t * dy) - radius


def mark(x, y):
    """Signed distance to the white tree."""
    d = min(math.hypot(x - cx, y - cy) - r for cx, cy, r in DOTS)
    for a, b, radius in CAPSULES:
        d = min(d, capsule(x, y, a, b, radius))
    return d


def coverage(distance, size):
    """How much of a pixel a shape covers, from its distance (in the unit square) at the centre."""
    return max(0.0, min(1.0, 0.5 - distance * size))


def draw(size):
    """The icon's RGBA rows."""
    rows = []
    for j in range(size):
        row = bytearray()
        y = (j + 0.5) / size
        for i in range(size):
            x = (i + 0.5) / size
            alpha = coverage(rounded_square(x, y), size)
            if alpha == 0.0:
                row += b"\0\0\0\0"
                continue
            white = coverage(mark(x, y), size)
            colour = [round(c * (1 - white) + w * white) for c, w in zip(ACCENT, WHITE)]
            row += bytes(colour + [round(alpha * 255)])
        rows.append(bytes(row))
    return rows


def png(size, rows):
    """A PNG file's bytes: 8-bit RGBA, no interlacing, each row unfiltered."""

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)
    data = zlib.compress(b"".join(b"\0" + row for row in rows), 9)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", data) + chunk(b"IEND", b"")


def main():
    for size in (192, 512):
        path = os.path.join(ROOT, "assets", f"icon-{size}.png")
        with open(path, "wb") as out:
            out.write(png(size, draw(size)))
        print(f"{os.path.relpath(path, ROOT)}: {size}×{size}")


if __name__ == "__main__":
    main()
