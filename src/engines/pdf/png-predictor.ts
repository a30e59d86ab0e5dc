/**
 * One byte of a PNG-predicted row (the FlateDecode /Predictor 10–15 of PDF): the raw byte plus the
 * prediction the row's filter type names from its left, upper and upper-left neighbours.
 * Undefined for a filter type PNG does not have.
 */
export function unpredictPngByte(type: number, raw: number, left: number, up: number, upLeft: number): number | undefined {
  switch (type) {
    case 0:
      return raw & 0xff;
    case 1:
      return (raw + left) & 0xff;
    case 2:
      return (raw + up) & 0xff;
    case 3:
      return (raw + ((left + up) >> 1)) & 0xff;
    case 4: {
      const p = left + up - upLeft;
      const pa = Math.abs(p - left);
      const pb = Math.abs(p - up);
      const pc = Math.abs(p - upLeft);
      return (raw + (pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft)) & 0xff;
    }
    default:
      return undefined;
  }
}
