import { PDFDocument, StandardFonts } from '@cantoo/pdf-lib';
import { postWebService, type WebServiceOutcome } from './converter.js';
import { info, locationId, type DocumentFile } from './documents.js';

export type ToolboxOutcome = WebServiceOutcome;

/** POST toolbox/{documentId} with `{toolbox, ...extra}`; redirects are not followed. */
export async function runToolbox(rest: string, token: string, documentId: string, toolbox: unknown[], extra: Record<string, unknown> = {}): Promise<ToolboxOutcome> {
  return postWebService(`${rest}/toolbox/${documentId}`, token, { toolbox, ...extra });
}

/** Runs the toolbox and expects success (303 to the same document); returns its DocumentFile. */
export async function toolboxOk(rest: string, token: string, documentId: string, toolbox: unknown[], extra: Record<string, unknown> = {}): Promise<DocumentFile> {
  const outcome = await runToolbox(rest, token, documentId, toolbox, extra);
  if (outcome.status !== 303) throw new Error(`toolbox failed: ${outcome.status} ${JSON.stringify(outcome.error)}`);
  return info(rest, token, documentId);
}

/** POST toolbox/new?name=&history= ; returns the new DocumentFile on 303, else throws with the error. */
export async function toolboxNew(rest: string, token: string, toolbox: unknown[], query = ''): Promise<DocumentFile> {
  const outcome = await postWebService(`${rest}/toolbox/new${query}`, token, { toolbox });
  if (outcome.status !== 303 || !outcome.location) throw new Error(`toolbox/new failed: ${outcome.status} ${JSON.stringify(outcome.error)}`);
  return info(rest, token, locationId({ location: outcome.location }));
}

/** A PDF of A4 pages whose page n carries the text "PAGE-n" (Helvetica, 24 pt). */
export async function numberedPdf(pages: number): Promise<Buffer> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  for (let n = 1; n <= pages; n++) document.addPage([595, 842]).drawText(`PAGE-${n}`, { x: 50, y: 700, size: 24, font });
  return Buffer.from(await document.save());
}
