import { QuireError } from '../../../core/errors.js';
import {
  addWatermark,
  editDocument,
  inField,
  parseColor,
  toPoints,
  type Anchor,
  type Metrics,
  type WatermarkPosition,
  type WatermarkSpec,
} from '../../../engines/pdf-edit/content/index.js';
import { decodeFileData, type FileData } from '../file-data.js';
import type { ToolboxOperation } from '../operation.js';
import { selectPages } from '../pages.js';

export interface WatermarkPositionOptions {
  aspectRatio?: boolean;
  height?: number;
  metrics?: Metrics;
  position?: Anchor;
  width?: number;
  x?: number;
  y?: number;
}

export interface WatermarkOptions {
  angle?: number;
  pages?: string;
  text?: {
    text?: string;
    font?: { bold?: boolean; color?: string; italic?: boolean; name?: string; opacity?: number; outline?: boolean; size?: number };
    position?: WatermarkPositionOptions;
  };
  image?: {
    data?: FileData;
    opacity?: number;
    scale?: number;
    position?: WatermarkPositionOptions;
  };
}

/**
 * `watermark` (reference §10.9.15): a text and/or image stamped over the selected pages, rotated
 * clockwise by `angle`, as an Acrobat-style watermark artifact (a form XObject marked as
 * /Pagination /Watermark, opacity through an ExtGState). Text in the standard fonts is not
 * embedded; other fonts and non-Latin text embed a TrueType subset of an installed font.
 */
export const watermarkOperation: ToolboxOperation<WatermarkOptions> = {
  name: 'watermark',
  needsPdf: true,
  async run(input, options, context, field) {
    if (!options.text && !options.image) {
      throw new QuireError('PARAMETER', `Invalid parameter ${field}: give a text or an image watermark (${field}.text or ${field}.image).`);
    }
    const imageBytes = options.image ? decodeFileData(options.image.data, `${field}.image.data`) : undefined;
    const output = context.scratch('pdf');
    try {
      await editDocument(input.path, output, async (document) => {
        const spec: WatermarkSpec = {
          pages: selectPages(options.pages ?? '', document.getPageCount(), `${field}.pages`),
          angle: options.angle ?? 45,
          scratchPath: context.scratch('img'),
          fonts: { timeoutMs: context.engines.toolTimeoutMs, env: { ...process.env, ...context.engines.fontEnv } },
        };
        if (options.text) {
          const font = options.text.font ?? {};
          spec.text = {
            text: options.text.text ?? 'Confidential',
            font: { name: font.name ?? '', bold: font.bold ?? false, italic: font.italic ?? false },
            size: font.size ?? 24,
            color: parseColor(font.color ?? '#A0A0A0', 'text.font.color'),
            opacity: (font.opacity ?? 100) / 100,
            outline: font.outline ?? false,
            position: position(options.text.position),
          };
        }
        if (options.image && imageBytes) {
          spec.image = { bytes: imageBytes, opacity: (options.image.opacity ?? 25) / 100, scale: options.image.scale ?? 0, position: position(options.image.position) };
        }
        await addWatermark(document, spec);
      });
    } catch (error) {
      throw inField(error, field);
    }
    return { path: output, type: input.type };
  },
};

function position(options: WatermarkPositionOptions = {}): WatermarkPosition {
  const metrics = options.metrics ?? 'mm';
  return {
    anchor: options.position ?? 'center_center',
    x: toPoints(options.x ?? 0, metrics),
    y: toPoints(options.y ?? 0, metrics),
    width: toPoints(options.width ?? 0, metrics),
    height: toPoints(options.height ?? 0, metrics),
    aspectRatio: options.aspectRatio ?? true,
  };
}
