import type sharpModule from 'sharp';
import type { Sharp, SharpOptions } from 'sharp';

export type SharpFactory = typeof sharpModule;

/** libvips is loaded with the first image, not at server start (it costs ~30 MB of resident memory). */
export async function loadSharp(): Promise<SharpFactory> {
  const { default: sharp } = await import('sharp');
  return sharp;
}

/**
 * The decoder options for every file the engine opens. `failOn: 'warning'` (sharp's advice for
 * untrusted input) turns a truncated or garbled image into an error instead of a half-grey page;
 * `sequentialRead` lets libvips stream rows from the file where the operations allow it.
 */
export function decodeOptions(maxPixels: number, extra: SharpOptions = {}): SharpOptions {
  return { failOn: 'warning', limitInputPixels: maxPixels, sequentialRead: true, ...extra };
}

export type { Sharp };
