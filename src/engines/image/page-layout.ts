import type { PageSetup } from '../../core/page-setup.js';
import { ImageEngineError } from './errors.js';
import type { PagePlacement } from './pdf-image-writer.js';

/**
 * Where an image goes on its page, in PDF points (1/72 in, origin bottom-left), and how many pixels it
 * should keep. Pure arithmetic, no I/O.
 */

/** The page the image goes on, in millimetres. */
export type PageGeometry = PageSetup;

export interface LayoutInput {
  /** Pixel size after EXIF orientation. */
  pixelWidth: number;
  pixelHeight: number;
  /** Resolution after EXIF orientation (x and y swap for 90° turns). */
  dpiX: number;
  dpiY: number;
  page: PageGeometry | undefined;
  maintainAspectRatio: boolean;
  /** 0 = no limit. */
  maxDpi: number;
}

/** The page and the image's rectangle on it, as the PDF writer takes them, and the pixels to keep. */
export interface Layout extends PagePlacement {
  /** The pixel size to embed: the source's, or less when `maxDpi` asks for it. */
  pixelWidth: number;
  pixelHeight: number;
}

/**
 * The largest page side most viewers accept (PDF 1.7 Annex C: 14,400 units, i.e. 200 in). A natural
 * size beyond it (a 20,000-pixel image at the 72-dpi default, or a bogus 1-dpi header) is scaled down
 * to fit, keeping the aspect ratio.
 */
export const MAX_PAGE_POINTS = 14_400;

export function layoutFrame(input: LayoutInput): Layout {
  const { pixelWidth, pixelHeight, dpiX, dpiY, page } = input;
  // The physical size the file states: a 300-dpi A4 scan is 595×842 pt.
  let naturalWidth = (pixelWidth * 72) / dpiX;
  let naturalHeight = (pixelHeight * 72) / dpiY;
  if (naturalWidth > MAX_PAGE_POINTS && naturalWidth >= naturalHeight) {
    naturalHeight = (naturalHeight * MAX_PAGE_POINTS) / naturalWidth;
    naturalWidth = MAX_PAGE_POINTS;
  } else if (naturalHeight > MAX_PAGE_POINTS) {
    naturalWidth = (naturalWidth * MAX_PAGE_POINTS) / naturalHeight;
    naturalHeight = MAX_PAGE_POINTS;
  }

  let placed: Omit<Layout, 'pixelWidth' | 'pixelHeight'>;
  if (!page) {
    placed = { pageWidth: naturalWidth, pageHeight: naturalHeight, x: 0, y: 0, width: naturalWidth, height: naturalHeight };
  } else {
    const areaWidth = page.width - page.marginLeft - page.marginRight;
    const areaHeight = page.height - page.marginTop - page.marginBottom;
    if (!(areaWidth > 0 && areaHeight > 0)) {
      throw new ImageEngineError('invalidOptions', `The margins leave no printable area on a ${page.width}×${page.height} pt page.`);
    }
    if (input.maintainAspectRatio) {
      // Scaled up or down until it touches two sides of the printable area, then centred.
      const scale = Math.min(areaWidth / naturalWidth, areaHeight / naturalHeight);
      const width = naturalWidth * scale;
      const height = naturalHeight * scale;
      placed = { pageWidth: page.width, pageHeight: page.height, x: page.marginLeft + (areaWidth - width) / 2, y: page.marginBottom + (areaHeight - height) / 2, width, height };
    } else {
      placed = { pageWidth: page.width, pageHeight: page.height, x: page.marginLeft, y: page.marginBottom, width: areaWidth, height: areaHeight };
    }
  }

  return { ...placed, pixelWidth: limitPixels(pixelWidth, placed.width, input.maxDpi), pixelHeight: limitPixels(pixelHeight, placed.height, input.maxDpi) };
}

/** The pixel count along one side so that it does not exceed `maxDpi` over `points`. */
function limitPixels(pixels: number, points: number, maxDpi: number): number {
  if (!(maxDpi > 0)) return pixels;
  const allowed = Math.max(1, Math.round((points / 72) * maxDpi));
  return allowed < pixels ? allowed : pixels;
}
