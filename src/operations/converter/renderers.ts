import type { Ghostscript } from '../../engines/ghostscript/ghostscript.js';
import type { InputKind } from './input-kind.js';
import type { Renderer } from './converter-service.js';

export interface RendererEngines {
  ghostscript: Ghostscript;
  /** Time limit of in-process and one-shot engines (Ghostscript, images), in milliseconds. */
  timeoutMs: number;
}

/** The converters of the kinds LibreOffice does not handle, by input kind. */
export function createRenderers(engines: RendererEngines): Partial<Record<InputKind, Renderer>> {
  return {
    postscript: async ({ input, output }) => {
      await engines.ghostscript.postscriptToPdf(input, output, engines.timeoutMs);
    },
  };
}
