/**
 * A Windows bitmap writer (libvips, and so sharp, cannot write BMP): 24-bit BGR, uncompressed,
 * BITMAPINFOHEADER, rows bottom-up and padded to four bytes, the resolution in pixels per metre.
 */
export function encodeBmp(rgb: Buffer, width: number, height: number, dpi: number): Buffer {
  const stride = Math.ceil((width * 3) / 4) * 4;
  const imageSize = stride * height;
  const header = 14 + 40;
  const out = Buffer.alloc(header + imageSize);
  out.write('BM', 0, 'latin1');
  out.writeUInt32LE(header + imageSize, 2);
  out.writeUInt32LE(header, 10);
  out.writeUInt32LE(40, 14);
  out.writeInt32LE(width, 18);
  out.writeInt32LE(height, 22); // positive: bottom-up rows
  out.writeUInt16LE(1, 26);
  out.writeUInt16LE(24, 28);
  out.writeUInt32LE(0, 30); // BI_RGB
  out.writeUInt32LE(imageSize, 34);
  const perMetre = Math.round(dpi / 0.0254);
  out.writeInt32LE(perMetre, 38);
  out.writeInt32LE(perMetre, 42);
  for (let y = 0; y < height; y++) {
    const source = y * width * 3;
    const target = header + (height - 1 - y) * stride;
    for (let x = 0; x < width; x++) {
      out[target + x * 3] = rgb[source + x * 3 + 2]!;
      out[target + x * 3 + 1] = rgb[source + x * 3 + 1]!;
      out[target + x * 3 + 2] = rgb[source + x * 3]!;
    }
  }
  return out;
}
