import { Ghostscript } from '../../../src/engines/ghostscript/ghostscript.js';
import { findSrgbProfile } from '../../../src/engines/ghostscript/pdfa.js';
import { PdfRewriter } from '../../../src/engines/pdf/rewriter.js';
import { PdfaService } from '../../../src/operations/pdfa/pdfa-service.js';
import type { PdfaRequest } from '../../../src/operations/pdfa/pdfa.schema.js';
import type { TestStore } from '../transaction/store.js';

/** The pdfa service on a test store, with the real Ghostscript (or the one given), qpdf and validator. */
export function pdfaService(store: TestStore, ghostscript: Pick<Ghostscript, 'pdfa'> = new Ghostscript()): PdfaService {
  return new PdfaService(
    { documents: store.documents, credentials: store.credentials },
    { ghostscript: ghostscript as Ghostscript, rewriter: new PdfRewriter({ timeoutMs: 30_000 }), iccProfile: findSrgbProfile() },
    60_000,
  );
}

/** A convert request as the route hands it over (defaults filled), with `extra` members. */
export function convertRequest(level: string, extra: Record<string, unknown> = {}): PdfaRequest {
  return { pdfa: { convert: { level, errorReport: 'none', successReport: 'none', imageQuality: 75, autoTagging: false, ...extra } } } as unknown as PdfaRequest;
}
