import { StructureError } from './errors.js';
import type { QpdfCall } from '../qpdf.js';
import type { PdfStructureTool } from '../../contracts.js';
import { asDict, isRef } from '../qpdf-json.js';
import type { QDict, QValue } from '../qpdf-json.js';
import { readDocumentJson } from './document-json.js';
import type { DocumentJson } from './document-json.js';
import { ObjectUpdates, text } from './json-update.js';
import { mayContain, scanForKeys } from './token-scan.js';

/**
 * Document-level edits of a merge result, in one `qpdf --update-from-json` pass:
 *
 * - reset metadata: the document information dictionary is replaced by a fresh one (producer,
 *   creation and modification date) and the XMP metadata stream is dropped from the catalog;
 * - remove static XFA: the XFA packets leave the AcroForm (the AcroForm fields stay), with the
 *   catalog's /NeedsRendering and the usage-rights signatures (/Perms /UR, /UR3) that enable extended
 *   features in Reader and are void once the document changes.
 */
export interface CatalogEdits {
  resetMetadata: boolean;
  removeXfa: boolean;
  /** Creation and modification date written by resetMetadata. */
  now: Date;
  producer: string;
}

/** Whether the document's AcroForm carries XFA. A scan of the bytes rules most documents out without qpdf. */
export async function hasXfa(qpdf: PdfStructureTool, file: string, call: QpdfCall): Promise<boolean> {
  if (!mayContain(await scanForKeys(file, ['/XFA']), '/XFA')) return false;
  const document = await readDocumentJson(qpdf, file, call);
  const { catalog, acroform } = await catalogAndForm(document);
  return catalog !== undefined && acroform?.value['/XFA'] !== undefined;
}

export async function editCatalog(qpdf: PdfStructureTool, input: string, output: string, edits: CatalogEdits, call: QpdfCall): Promise<void> {
  const document = await readDocumentJson(qpdf, input, call);
  const { fetcher, trailer } = document;
  const { catalog, acroform } = await catalogAndForm(document);
  if (!catalog) throw new StructureError('unreadable', 'the document has no catalog');
  const updates = new ObjectUpdates(document.maxObjectId);
  const newCatalog: QDict = { ...catalog };
  const newTrailer: QDict = { ...trailer };

  if (edits.resetMetadata) {
    const date = text(pdfDate(edits.now));
    newTrailer['/Info'] = updates.add({ '/Producer': text(edits.producer), '/CreationDate': date, '/ModDate': date });
    delete newCatalog['/Metadata'];
  }

  if (edits.removeXfa) {
    if (acroform && acroform.value['/XFA'] !== undefined) {
      const form: QDict = { ...acroform.value };
      delete form['/XFA'];
      newCatalog['/AcroForm'] = acroform.ref ? updates.add(form) : form;
    }
    delete newCatalog['/NeedsRendering'];
    const permsValue = catalog['/Perms'];
    const perms = asDict(isRef(permsValue) ? await fetcher.resolve(permsValue) : permsValue);
    if (perms) {
      const rest: QDict = { ...perms };
      delete rest['/UR'];
      delete rest['/UR3'];
      if (Object.keys(rest).length === 0) delete newCatalog['/Perms'];
      else newCatalog['/Perms'] = isRef(permsValue) ? updates.add(rest) : rest;
    }
  }

  newTrailer['/Root'] = updates.add(newCatalog);
  updates.setTrailer(newTrailer);
  await updates.apply(qpdf, input, output, call);
}

async function catalogAndForm(document: DocumentJson): Promise<{ catalogRef?: string; catalog?: QDict; acroform?: { ref?: string; value: QDict } }> {
  const { fetcher, trailer } = document;
  const catalogRef = trailer['/Root'];
  if (!isRef(catalogRef)) return {};
  const catalog = asDict(await fetcher.resolve(catalogRef));
  if (!catalog) return { catalogRef };
  const formValue: QValue | undefined = catalog['/AcroForm'];
  const form = asDict(isRef(formValue) ? await fetcher.resolve(formValue) : formValue);
  return { catalogRef, catalog, ...(form ? { acroform: { ...(isRef(formValue) ? { ref: formValue } : {}), value: form } } : {}) };
}

/** PDF date string (PDF 32000-1 §7.9.4) in UTC. */
function pdfDate(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `D:${date.getUTCFullYear()}${pad(date.getUTCMonth() + 1)}${pad(date.getUTCDate())}${pad(date.getUTCHours())}${pad(date.getUTCMinutes())}${pad(date.getUTCSeconds())}Z`;
}
