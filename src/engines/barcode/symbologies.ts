/**
 * The symbologies of the webPDF barcode service (`Operation_AddBarcode` members) and what bwip-js
 * calls them. The names are the wire names; detection reports and `formats` use the same ones.
 */
export const SYMBOLOGIES = ['qrcode', 'aztec', 'codabar', 'code128', 'code39', 'datamatrix', 'ean13', 'ean8', 'itf', 'pdf417', 'upca'] as const;
export type Symbology = (typeof SYMBOLOGIES)[number];

/** Two-dimensional codes: drawn with square modules (aspect kept); linear codes stretch to their box. */
export const MATRIX_SYMBOLOGIES: ReadonlySet<Symbology> = new Set(['qrcode', 'aztec', 'datamatrix', 'pdf417']);

export function isSymbology(name: string): name is Symbology {
  return (SYMBOLOGIES as readonly string[]).includes(name);
}

/** The options of one code as the generator takes them (the service has validated and defaulted them). */
export interface CodeSpec {
  symbology: Symbology;
  /** The text to encode (for matrix codes: already turned into bytes by the charset, one char per byte). */
  value: string;
  /** Quiet zone in modules on every side. */
  margin: number;
  /** QR: l/m/q/h. */
  qrErrorCorrection?: 'l' | 'm' | 'q' | 'h';
  /** Aztec: percent of error-correction words; PDF417: level 0-8. */
  errorCorrection?: number;
  /** Aztec: layers (negative: compact, 0: automatic). */
  layers?: number;
  /** DataMatrix: `rectangle` draws the rectangular variant; PDF417: `compact` the compact (truncated) one. */
  shape?: 'default' | 'rectangle' | 'square';
  compact?: boolean;
  /** DataMatrix: GS1 (value with application identifiers in parentheses). */
  gs1?: boolean;
  /** Linear codes: the human-readable text under the bars (human-readable.ts). */
  text?: boolean;
}

/** bwip-js's encoder name and options for a code. */
export function bwipOptions(spec: CodeSpec): { bcid: string; options: Record<string, string | number | boolean> } {
  switch (spec.symbology) {
    case 'qrcode':
      return { bcid: 'qrcode', options: { eclevel: (spec.qrErrorCorrection ?? 'l').toUpperCase() } };
    case 'aztec': {
      const options: Record<string, string | number | boolean> = {};
      // bwip-js takes the error-correction percentage in 5-95 (ZXing's default is 33).
      if (spec.errorCorrection !== undefined) options.eclevel = Math.min(95, Math.max(5, spec.errorCorrection));
      const layers = spec.layers ?? 0;
      if (layers < 0) Object.assign(options, { format: 'compact', layers: -layers });
      else if (layers > 0) Object.assign(options, { format: 'full', layers });
      return { bcid: 'azteccode', options };
    }
    case 'datamatrix':
      if (spec.gs1) return { bcid: 'gs1datamatrix', options: spec.shape === 'rectangle' ? { format: 'rectangle' } : {} };
      return { bcid: spec.shape === 'rectangle' ? 'datamatrixrectangular' : 'datamatrix', options: {} };
    case 'pdf417':
      return { bcid: spec.compact ? 'pdf417compact' : 'pdf417', options: spec.errorCorrection !== undefined ? { eclevel: spec.errorCorrection } : {} };
    case 'codabar':
      return { bcid: 'rationalizedCodabar', options: {} };
    case 'itf':
      return { bcid: 'interleaved2of5', options: {} };
    default:
      return { bcid: spec.symbology, options: {} };
  }
}
