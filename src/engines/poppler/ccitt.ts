/**
 * CCITT Modified Huffman coding (ITU-T T.4, one-dimensional) of black-and-white images, as TIFF
 * writes them with Compression 2 ("CCITT RLE": each row coded on its own, starting on a byte
 * boundary) and Compression 3 ("CCITT Group 3", 1-D: each row preceded by an EOL code). libvips
 * writes only Group 4, so these two are coded here.
 *
 * The code tables are those of T.4 (terminating codes 0–63, make-up codes 64–1728 per colour, the
 * extended make-up codes 1792–2560 shared by both), written as bit strings.
 */

const WHITE_TERMINATING = [
  '00110101',
  '000111',
  '0111',
  '1000',
  '1011',
  '1100',
  '1110',
  '1111',
  '10011',
  '10100',
  '00111',
  '01000',
  '001000',
  '000011',
  '110100',
  '110101',
  '101010',
  '101011',
  '0100111',
  '0001100',
  '0001000',
  '0010111',
  '0000011',
  '0000100',
  '0101000',
  '0101011',
  '0010011',
  '0100100',
  '0011000',
  '00000010',
  '00000011',
  '00011010',
  '00011011',
  '00010010',
  '00010011',
  '00010100',
  '00010101',
  '00010110',
  '00010111',
  '00101000',
  '00101001',
  '00101010',
  '00101011',
  '00101100',
  '00101101',
  '00000100',
  '00000101',
  '00001010',
  '00001011',
  '01010010',
  '01010011',
  '01010100',
  '01010101',
  '00100100',
  '00100101',
  '01011000',
  '01011001',
  '01011010',
  '01011011',
  '01001010',
  '01001011',
  '00110010',
  '00110011',
  '00110100',
];
const WHITE_MAKEUP = [
  '11011',
  '10010',
  '010111',
  '0110111',
  '00110110',
  '00110111',
  '01100100',
  '01100101',
  '01101000',
  '01100111',
  '011001100',
  '011001101',
  '011010010',
  '011010011',
  '011010100',
  '011010101',
  '011010110',
  '011010111',
  '011011000',
  '011011001',
  '011011010',
  '011011011',
  '010011000',
  '010011001',
  '010011010',
  '011000',
  '010011011',
];
const BLACK_TERMINATING = [
  '0000110111',
  '010',
  '11',
  '10',
  '011',
  '0011',
  '0010',
  '00011',
  '000101',
  '000100',
  '0000100',
  '0000101',
  '0000111',
  '00000100',
  '00000111',
  '000011000',
  '0000010111',
  '0000011000',
  '0000001000',
  '00001100111',
  '00001101000',
  '00001101100',
  '00000110111',
  '00000101000',
  '00000010111',
  '00000011000',
  '000011001010',
  '000011001011',
  '000011001100',
  '000011001101',
  '000001101000',
  '000001101001',
  '000001101010',
  '000001101011',
  '000011010010',
  '000011010011',
  '000011010100',
  '000011010101',
  '000011010110',
  '000011010111',
  '000001101100',
  '000001101101',
  '000011011010',
  '000011011011',
  '000001010100',
  '000001010101',
  '000001010110',
  '000001010111',
  '000001100100',
  '000001100101',
  '000001010010',
  '000001010011',
  '000000100100',
  '000000110111',
  '000000111000',
  '000000100111',
  '000000101000',
  '000001011000',
  '000001011001',
  '000000101011',
  '000000101100',
  '000001011010',
  '000001100110',
  '000001100111',
];
const BLACK_MAKEUP = [
  '0000001111',
  '000011001000',
  '000011001001',
  '000001011011',
  '000000110011',
  '000000110100',
  '000000110101',
  '0000001101100',
  '0000001101101',
  '0000001001010',
  '0000001001011',
  '0000001001100',
  '0000001001101',
  '0000001110010',
  '0000001110011',
  '0000001110100',
  '0000001110101',
  '0000001110110',
  '0000001110111',
  '0000001010010',
  '0000001010011',
  '0000001010100',
  '0000001010101',
  '0000001011010',
  '0000001011011',
  '0000001100100',
  '0000001100101',
];
/** 1792, 1856, …, 2560: the same for both colours. */
const EXTENDED_MAKEUP = [
  '00000001000',
  '00000001100',
  '00000001101',
  '000000010010',
  '000000010011',
  '000000010100',
  '000000010101',
  '000000010110',
  '000000010111',
  '000000011100',
  '000000011101',
  '000000011110',
  '000000011111',
];
const EOL = '000000000001';

class BitWriter {
  private readonly bytes: number[] = [];
  private current = 0;
  private used = 0;

  bits(code: string): void {
    for (let i = 0; i < code.length; i++) {
      this.current = (this.current << 1) | (code.charCodeAt(i) === 49 ? 1 : 0);
      if (++this.used === 8) {
        this.bytes.push(this.current);
        this.current = 0;
        this.used = 0;
      }
    }
  }

  /** Pads with zero bits to the next byte boundary. */
  align(): void {
    if (this.used > 0) this.bits('0'.repeat(8 - this.used));
  }

  buffer(): Buffer {
    this.align();
    return Buffer.from(this.bytes);
  }
}

function writeRun(out: BitWriter, length: number, black: boolean): void {
  let rest = length;
  while (rest > 2560 + 63) {
    out.bits(EXTENDED_MAKEUP[EXTENDED_MAKEUP.length - 1]!);
    rest -= 2560;
  }
  if (rest >= 64) {
    const makeup = Math.floor(rest / 64) * 64;
    out.bits(makeup >= 1792 ? EXTENDED_MAKEUP[(makeup - 1792) / 64]! : (black ? BLACK_MAKEUP : WHITE_MAKEUP)[makeup / 64 - 1]!);
    rest -= makeup;
  }
  out.bits((black ? BLACK_TERMINATING : WHITE_TERMINATING)[rest]!);
}

/**
 * Codes the image (one byte per pixel, 0 black, anything else white) row by row. `rle`: every row
 * byte-aligned, no EOL (TIFF Compression 2); `group3`: an EOL before every row (Compression 3, 1-D).
 */
export function encodeModifiedHuffman(pixels: Uint8Array, width: number, height: number, mode: 'rle' | 'group3'): Buffer {
  const out = new BitWriter();
  for (let y = 0; y < height; y++) {
    if (mode === 'group3') out.bits(EOL);
    const row = y * width;
    let x = 0;
    let black = false; // every row starts with a white run (possibly empty)
    while (x < width) {
      let end = x;
      while (end < width && (pixels[row + end] === 0) === black) end++;
      writeRun(out, end - x, black);
      x = end;
      black = !black;
    }
    if (width === 0) writeRun(out, 0, false);
    if (mode === 'rle') out.align();
  }
  return out.buffer();
}

/**
 * A single-page TIFF of a black-and-white image coded with `encodeModifiedHuffman`: one strip,
 * WhiteIsZero (as fax images are), fill order most significant bit first.
 */
export function bilevelTiff(pixels: Uint8Array, width: number, height: number, mode: 'rle' | 'group3', dpi: number): Buffer {
  const data = encodeModifiedHuffman(pixels, width, height, mode);
  const entries: [tag: number, type: number, value: number][] = [
    [256, 4, width],
    [257, 4, height],
    [258, 3, 1],
    [259, 3, mode === 'rle' ? 2 : 3],
    [262, 3, 0],
    [266, 3, 1],
    [273, 4, 8],
    [277, 3, 1],
    [278, 4, height],
    [279, 4, data.length],
    [282, 5, 0],
    [283, 5, 0],
    ...(mode === 'group3' ? [[292, 4, 0] as [number, number, number]] : []),
    [296, 3, 2],
  ];
  const ifdOffset = 8 + data.length + (data.length % 2);
  const rationalOffset = ifdOffset + 2 + entries.length * 12 + 4;
  const out = Buffer.alloc(rationalOffset + 8);
  out.write('II', 0, 'latin1');
  out.writeUInt16LE(42, 2);
  out.writeUInt32LE(ifdOffset, 4);
  data.copy(out, 8);
  out.writeUInt16LE(entries.length, ifdOffset);
  entries.forEach(([tag, type, value], i) => {
    const at = ifdOffset + 2 + i * 12;
    out.writeUInt16LE(tag, at);
    out.writeUInt16LE(type, at + 2);
    out.writeUInt32LE(1, at + 4);
    if (type === 5)
      out.writeUInt32LE(rationalOffset, at + 8); // both resolutions share one rational
    else if (type === 3) out.writeUInt16LE(value, at + 8);
    else out.writeUInt32LE(value, at + 8);
  });
  out.writeUInt32LE(0, rationalOffset - 4);
  out.writeUInt32LE(Math.round(dpi * 100), rationalOffset);
  out.writeUInt32LE(100, rationalOffset + 4);
  return out;
}
