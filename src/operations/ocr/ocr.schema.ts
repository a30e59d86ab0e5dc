import Type from 'typebox';
import type { PdfaOptions } from '../pdfa/pdfa.schema.js';
import { defaulted, type Options } from '../option-schema.js';
import { bool, int, Metrics, opt } from '../toolbox/schema-types.js';
import { componentRef, operationEnvelope, type OperationRequest } from '../webservice.js';

/**
 * `Operation_OcrOperation` (reference §10.5): `POST ocr/{documentId}` with `{"ocr":{…}}`. Unknown
 * members are allowed (reference §5.3). docs/ocr.md says what each member does on this server.
 */

/**
 * Tesseract language codes beyond the reference's five (`nld`, `chi_sim`, `deu_latf`, `eng+deu`): a
 * server offers those whose Debian package (tesseract-ocr-<code>) is installed; a missing one is -203.
 * Three letters and an optional variant, so nothing else reaches Tesseract's `-l`.
 */
const LANGUAGE_CODE = '^[a-z]{3}(_[a-z]{3,4})?(\\+[a-z]{3}(_[a-z]{3,4})?){0,4}$';

const Intensity = (value: 'off' | 'low') => defaulted(Type.Enum(['off', 'value', 'low', 'medium', 'high'], { default: value, description: 'Operation_OptimizationIntensity' }));

export const ImageOptimization = Type.Object(
  {
    deskew: opt(bool(true)),
    despeckle: opt(bool(true)),
    edgeAccentuation: Intensity('low'),
    edgeAccentuationValue: defaulted(int({ default: 100, minimum: 0 })),
    gammaCorrection: Intensity('off'),
    gammaCorrectionValue: defaulted(Type.Number({ default: 0, minimum: 0 })),
    increaseContrast: Intensity('off'),
    increaseContrastValue: defaulted(int({ default: 0, minimum: -100, maximum: 100 })),
    medianFilter: Intensity('low'),
    medianFilterValue: defaulted(int({ default: 1, minimum: 0 })),
    noiseReduction: Intensity('low'),
    noiseReductionValue: defaulted(Type.Number({ default: 1, minimum: 0 })),
    reduceDithering: opt(bool(false)),
    sharpen: Intensity('low'),
    sharpenValue: defaulted(Type.Number({ default: 1, minimum: 0 })),
  },
  { description: 'Operation_ImageOptimization: pre-processing of the image given to Tesseract (docs/ocr.md)' },
);

export const OcrPage = Type.Object(
  {
    width: defaulted(int({ default: 210, minimum: 0 })),
    height: defaulted(int({ default: 297, minimum: 0 })),
    metrics: opt(Metrics('mm')),
  },
  { description: 'Operation_OcrPage: the page an image becomes' },
);

export const Ocr = Type.Object(
  {
    checkResolution: opt(bool(true, 'refuse inputs below 200 dpi')),
    failOnWarning: opt(bool(false, 'warnings (pages skipped, low resolution, no text found) fail the call')),
    forceEachPage: opt(bool(false, 'recognise pages that already contain text too')),
    imageDpi: defaulted(int({ default: 200, minimum: 0, maximum: 9600 })),
    jpegQuality: defaulted(int({ default: 75, minimum: 0, maximum: 100 })),
    language: defaulted(
      Type.Union([Type.Enum(['eng', 'deu', 'fra', 'ita', 'spa'], { description: 'Operation_OcrLanguage' }), Type.String({ pattern: LANGUAGE_CODE })], {
        default: 'eng',
        description: "Operation_OcrLanguage, or any other Tesseract language (or several joined by '+') whose traineddata is installed (docs/ocr.md)",
      }),
    ),
    normalizePageRotation: opt(bool(false, 'turn pages upright (Tesseract OSD) before recognition')),
    ocrMode: defaulted(Type.Enum(['pageSegments', 'column', 'unfiltered'], { default: 'pageSegments', description: 'Operation_OcrMode: Tesseract page-segmentation mode (docs/ocr.md)' })),
    optimization: opt(ImageOptimization),
    outputFormat: defaulted(Type.Enum(['text', 'hocr', 'pdf'], { default: 'pdf', description: 'Operation_OcrOutput' })),
    page: opt(OcrPage),
    pdfa: opt(componentRef<PdfaOptions>('Operation_Pdfa')),
  },
  { $id: 'Operation_Ocr' },
);

export type OcrOptions = Options<typeof Ocr>;

export const OcrOperation = operationEnvelope<OcrOptions>('ocr', 'Operation_Ocr');

export type OcrRequest = OperationRequest<'ocr', OcrOptions>;
