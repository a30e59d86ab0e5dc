/**
 * Grey to black and white for the fax compressions of TIFF, by `blackAndWhiteQuality`:
 * - `low`: a fixed threshold (crisp text, grey areas become black or white);
 * - `middle`: ordered dithering with an 8×8 Bayer matrix (greys become regular patterns);
 * - `high`: Floyd–Steinberg error diffusion (the closest rendering of greys and photographs).
 * Input and output are one byte per pixel; the output holds only 0 (black) and 255 (white).
 */
export type BlackAndWhiteQuality = 'low' | 'middle' | 'high';

const BAYER8 = (() => {
  const m = [
    [0, 2],
    [3, 1],
  ];
  let matrix = m;
  for (let size = 2; size < 8; size *= 2) {
    const next: number[][] = Array.from({ length: size * 2 }, () => new Array<number>(size * 2).fill(0));
    for (let y = 0; y < size; y++) {
      for (let x = 0; x < size; x++) {
        const v = matrix[y]![x]! * 4;
        next[y]![x] = v;
        next[y]![x + size] = v + 2;
        next[y + size]![x] = v + 3;
        next[y + size]![x + size] = v + 1;
      }
    }
    matrix = next;
  }
  // Thresholds spread over 0..255, centred in each step.
  return matrix.map((row) => row.map((v) => ((v + 0.5) * 256) / 64));
})();

export function toBilevel(gray: Uint8Array, width: number, height: number, quality: BlackAndWhiteQuality): Uint8Array {
  const out = new Uint8Array(width * height);
  if (quality === 'low') {
    for (let i = 0; i < gray.length; i++) out[i] = gray[i]! < 128 ? 0 : 255;
    return out;
  }
  if (quality === 'middle') {
    for (let y = 0; y < height; y++) {
      const row = BAYER8[y % 8]!;
      for (let x = 0; x < width; x++) {
        const i = y * width + x;
        out[i] = gray[i]! < row[x % 8]! ? 0 : 255;
      }
    }
    return out;
  }
  // Error diffusion over two rows of errors (7/16 right, 3/16 down-left, 5/16 down, 1/16 down-right).
  let current = new Float32Array(width + 2);
  let next = new Float32Array(width + 2);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const value = gray[i]! + current[x + 1]!;
      const level = value < 128 ? 0 : 255;
      out[i] = level;
      const error = value - level;
      current[x + 2]! += (error * 7) / 16;
      next[x]! += (error * 3) / 16;
      next[x + 1]! += (error * 5) / 16;
      next[x + 2]! += error / 16;
    }
    [current, next] = [next, current];
    next.fill(0);
  }
  return out;
}
