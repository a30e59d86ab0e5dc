/** The messages between the detector and its worker threads (structured-clone data only). */

export interface DecodeJob {
  id: number;
  /** An encoded image (PNG, JPEG, BMP, GIF) as zxing-wasm decodes it itself. */
  image: Uint8Array;
  /** ZXing format names (`QRCode`, `EAN13`, …); empty: every format. */
  formats: string[];
  tryHarder: boolean;
  pure: boolean;
  validateChecksum: boolean;
  /** `Ignore`, `Read` or `Require` (EAN/UPC add-on symbols). */
  eanAddOn: 'Ignore' | 'Read' | 'Require';
  characterSet?: string;
  maxSymbols: number;
}

/** One code found, positions in pixels of the image. */
export interface FoundCode {
  /** ZXing's format name. */
  format: string;
  text: string;
  /** The raw bytes of the content, Base64. */
  bytes: string;
  /** top-left, top-right, bottom-right, bottom-left corners of the symbol as oriented, in pixels. */
  corners: [number, number][];
  /** Degrees the symbol is turned, as ZXing reports it. */
  rotation: number;
  /** Error-correction level where the symbology has one ("" otherwise). */
  ecLevel: string;
}

export type DecodeReply = { id: number; codes: FoundCode[] } | { id: number; error: string };
