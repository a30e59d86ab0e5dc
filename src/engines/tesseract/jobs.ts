/** What the Tesseract pool runs: one page image per job. */

/** Recognise one page image: the outputs Tesseract writes from one recognition. */
export interface RecognizeJob {
  kind: 'recognize';
  /** The page image (PNG, PGM, TIFF, JPEG: anything Leptonica reads). */
  image: string;
  /** Path without extension: Tesseract writes `<base>.pdf`, `<base>.hocr`, `<base>.txt`. */
  outputBase: string;
  /** Traineddata names joined by `+` (`eng`, `deu+eng`). */
  language: string;
  /** Tesseract's page-segmentation mode (--psm). */
  psm: number;
  /** The image's resolution: the text-only PDF page is pixels × 72 / dpi points. */
  dpi: number;
  /** `pdf` is the text-only PDF (textonly_pdf=1): invisible text, no image. */
  outputs: readonly ('pdf' | 'hocr' | 'txt')[];
}

/** Orientation detection (OSD, --psm 0): how far the page is turned. */
export interface OrientationJob {
  kind: 'orientation';
  image: string;
  dpi: number;
}

export type TesseractJob = RecognizeJob | OrientationJob;

export interface RecognizeResult {
  kind: 'recognize';
  files: Partial<Record<'pdf' | 'hocr' | 'txt', string>>;
}

export interface OrientationResult {
  kind: 'orientation';
  /** Degrees clockwise the page must be turned to be upright (0, 90, 180, 270). */
  rotate: number;
  /** Tesseract's confidence of that answer; below ~2 it is a guess. */
  confidence: number;
}

export type TesseractResult = RecognizeResult | OrientationResult;
