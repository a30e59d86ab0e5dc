import { describe, expect, it } from 'vitest';
import { ImageEngineError } from '../../../src/engines/image/errors.js';
import { MAX_PAGE_POINTS, layoutFrame } from '../../../src/engines/image/page-layout.js';
import type { LayoutInput } from '../../../src/engines/image/page-layout.js';

const A4 = { width: 595, height: 842, marginTop: 72, marginRight: 72, marginBottom: 72, marginLeft: 72 };
const base: LayoutInput = { pixelWidth: 200, pixelHeight: 100, dpiX: 72, dpiY: 72, page: undefined, maintainAspectRatio: true, maxDpi: 0 };

describe('layoutFrame', () => {
  it('gives the natural size: pixels ÷ dpi, x and y apart', () => {
    expect(layoutFrame(base)).toEqual({ pageWidth: 200, pageHeight: 100, x: 0, y: 0, width: 200, height: 100, pixelWidth: 200, pixelHeight: 100 });
    // An A4 scan at 300 dpi is A4; a fax page at 204×98 dpi is as wide as it is tall on paper.
    const a4 = layoutFrame({ ...base, pixelWidth: 2480, pixelHeight: 3508, dpiX: 300, dpiY: 300 });
    expect([a4.pageWidth, a4.pageHeight]).toEqual([595.2, 841.92]);
    const fax = layoutFrame({ ...base, pixelWidth: 408, pixelHeight: 196, dpiX: 204, dpiY: 98 });
    expect([fax.pageWidth, fax.pageHeight]).toEqual([144, 144]);
  });

  it('scales an oversized natural page down to the largest page viewers accept', () => {
    const huge = layoutFrame({ ...base, pixelWidth: 30_000, pixelHeight: 15_000 });
    expect([huge.pageWidth, huge.pageHeight]).toEqual([MAX_PAGE_POINTS, MAX_PAGE_POINTS / 2]);
    expect([huge.pixelWidth, huge.pixelHeight]).toEqual([30_000, 15_000]);
  });

  it('fits inside the printable area, centred, keeping the aspect ratio', () => {
    const fit = layoutFrame({ ...base, page: A4 });
    // Printable 451 × 698 pt; a 2:1 image is limited by the width.
    expect(fit).toMatchObject({ pageWidth: 595, pageHeight: 842, x: 72, width: 451, height: 225.5 });
    expect(fit.y).toBeCloseTo(72 + (698 - 225.5) / 2);
  });

  it('stretches over the printable area without aspect ratio', () => {
    expect(layoutFrame({ ...base, page: A4, maintainAspectRatio: false })).toMatchObject({ x: 72, y: 72, width: 451, height: 698 });
  });

  it('lowers the pixel count only where the resolution on the page exceeds maxDpi', () => {
    // 3000 × 1500 px at 300 dpi is 10 × 5 in: 150 dpi keeps 1500 × 750.
    const scan = { ...base, pixelWidth: 3000, pixelHeight: 1500, dpiX: 300, dpiY: 300 };
    expect(layoutFrame({ ...scan, maxDpi: 150 })).toMatchObject({ pixelWidth: 1500, pixelHeight: 750 });
    expect(layoutFrame({ ...scan, maxDpi: 600 })).toMatchObject({ pixelWidth: 3000, pixelHeight: 1500 });
    // Fax: only the 204-dpi direction is above 150.
    expect(layoutFrame({ ...base, pixelWidth: 408, pixelHeight: 196, dpiX: 204, dpiY: 98, maxDpi: 150 })).toMatchObject({ pixelWidth: 300, pixelHeight: 196 });
  });

  it('refuses margins that leave nothing to print on', () => {
    expect(() => layoutFrame({ ...base, page: { ...A4, marginLeft: 300, marginRight: 300 } })).toThrow(ImageEngineError);
  });
});
