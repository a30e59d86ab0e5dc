/**
 * PNG, BMP and often TIFF and JFIF store resolution per metre or per centimetre as whole numbers, so
 * "300 dpi" arrives as 11811 px/m = 299.9994 dpi and "72 dpi" as 2835 px/m = 72.009 dpi. Taken
 * literally, a 300-dpi A4 scan would miss A4 by a fraction of a point. A value within the rounding
 * error of a whole pixel per metre (±0.5 px/m = ±0.0127 dpi) of a whole dpi is taken as that dpi.
 */
const ROUNDING = 0.5 * 0.0254 + 1e-9;

export function dpiFromMetric(pixelsPerMetre: number): number {
  const dpi = pixelsPerMetre * 0.0254;
  const whole = Math.round(dpi);
  return Math.abs(dpi - whole) <= ROUNDING ? whole : dpi;
}

export function dpiFromPerCentimetre(pixelsPerCentimetre: number): number {
  return dpiFromMetric(pixelsPerCentimetre * 100);
}
