/** webPDF `Document_MetadataImageEntry` for one image (one page of a multi-page TIFF or GIF). */
export interface ImageEntry {
  width: number;
  height: number;
  xRes: number;
  yRes: number;
  unit: 'none' | 'inch' | 'centimeter';
  colorDepth: number;
  isAnimated: boolean;
  orientation: ImageOrientation;
  metadata: Record<string, Record<string, string>>;
}

export type ImageOrientation = 'topLeft' | 'topRight' | 'bottomRight' | 'bottomLeft' | 'leftTop' | 'rightTop' | 'rightBottom' | 'leftBottom';

/** EXIF orientation 1-8 in webPDF's names (the position of row 0 / column 0). */
const ORIENTATIONS: ImageOrientation[] = ['topLeft', 'topRight', 'bottomRight', 'bottomLeft', 'leftTop', 'rightTop', 'rightBottom', 'leftBottom'];

const BITS_PER_SAMPLE: Record<string, number> = { uchar: 8, char: 8, ushort: 16, short: 16, uint: 32, int: 32, float: 32, double: 64 };

/**
 * Reads image properties from the file's headers with sharp (libvips): nothing is decoded, so a
 * large image costs a header read. Multi-page images (TIFF, animated GIF/WebP) give one entry per
 * page, up to `maxPages`.
 */
export async function imageMetadata(file: string, maxPages = 100): Promise<ImageEntry[]> {
  // libvips is loaded with the first image, not at server start (it costs ~30 MB of resident memory).
  const { default: sharp } = await import('sharp');
  const first = await sharp(file, { pages: 1, limitInputPixels: false }).metadata();
  const pages = Math.min(first.pages ?? 1, maxPages);
  const animated = (first.pages ?? 1) > 1 && (first.format === 'gif' || first.format === 'webp');
  const entries: ImageEntry[] = [];
  for (let page = 0; page < pages; page++) {
    const meta = page === 0 ? first : await sharp(file, { page, pages: 1, limitInputPixels: false }).metadata();
    const density = meta.density ?? 0;
    entries.push({
      width: meta.width ?? 0,
      height: meta.pageHeight ?? meta.height ?? 0,
      xRes: density,
      yRes: density,
      unit: density > 0 ? 'inch' : 'none',
      colorDepth: (meta.channels ?? 0) * (BITS_PER_SAMPLE[meta.depth ?? 'uchar'] ?? 8),
      isAnimated: animated,
      orientation: ORIENTATIONS[(meta.orientation ?? 1) - 1] ?? 'topLeft',
      metadata: { format: { name: meta.format ?? '', space: meta.space ?? '', hasAlpha: String(meta.hasAlpha ?? false) } },
    });
    if (animated) break; // the frames of an animation share one size: one entry describes them
  }
  return entries;
}
