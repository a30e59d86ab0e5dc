/**
 * Affine matrices as PDF writes them: [a b c d e f] stands for
 *   | a b 0 |
 *   | c d 0 |
 *   | e f 1 |
 * and a point is the row vector [x y 1] multiplied from the left.
 */
export type Matrix = readonly [number, number, number, number, number, number];

export const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];

/** `first` then `second`: the matrix that maps like applying `first`, then `second` (PDF's `first × second`). */
export function multiply(first: Matrix, second: Matrix): Matrix {
  const [a, b, c, d, e, f] = first;
  const [A, B, C, D, E, F] = second;
  return [a * A + b * C, a * B + b * D, c * A + d * C, c * B + d * D, e * A + f * C + E, e * B + f * D + F];
}

export function apply(m: Matrix, x: number, y: number): [number, number] {
  return [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];
}

/** The inverse, or undefined for a singular matrix (which paints nothing). */
export function invert(m: Matrix): Matrix | undefined {
  const [a, b, c, d, e, f] = m;
  const det = a * d - b * c;
  if (!Number.isFinite(det) || Math.abs(det) < 1e-12) return undefined;
  return [d / det, -b / det, -c / det, a / det, (c * f - d * e) / det, (b * e - a * f) / det];
}

export function translate(tx: number, ty: number): Matrix {
  return [1, 0, 0, 1, tx, ty];
}

/** A matrix from six operands; anything that is not a finite number makes it undefined. */
export function matrixOf(values: readonly number[]): Matrix | undefined {
  if (values.length !== 6 || values.some((v) => !Number.isFinite(v))) return undefined;
  return [values[0]!, values[1]!, values[2]!, values[3]!, values[4]!, values[5]!];
}
