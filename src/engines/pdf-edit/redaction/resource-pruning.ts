import { PDFDict, PDFStream, type PDFDocument, type PDFObject } from '@cantoo/pdf-lib';
import { parseContent } from './content-lexer.js';
import { pageContent } from './content-redactor.js';
import { dictValue, N, nameValue, resolve } from '../pdf-objects.js';
import { decodeStream, StreamDecodeError } from './stream-codec.js';

/**
 * After blacken, the images and forms that were replaced by redacted copies may still be listed in
 * resource dictionaries — the page's own (now pointing at the copies as well), or dictionaries shared
 * with other pages that never draw them. Listed means referenced, and qpdf keeps every referenced
 * object: the unredacted originals would stay in the file. So every resource dictionary (pages and
 * form XObjects) that lists an original without drawing it loses that entry, on a copy of the
 * dictionary so that owners which do draw it keep it. An original still drawn somewhere else stays:
 * it is visible there.
 */
export function pruneReplacedXObjects(document: PDFDocument, originals: ReadonlySet<PDFObject>): void {
  if (originals.size === 0) return;
  const context = document.context;
  const owners: { resources: PDFDict | undefined; content: () => Uint8Array; setResources: (resources: PDFDict) => void }[] = [];
  for (const page of document.getPages()) {
    const leaf = page.node;
    owners.push({ resources: leaf.Resources(), content: () => pageContent(context, leaf.get(N('Contents'))), setResources: (r) => leaf.set(N('Resources'), r) });
  }
  for (const [, object] of context.enumerateIndirectObjects()) {
    if (!(object instanceof PDFStream) || nameValue(context, object.dict.get(N('Subtype'))) !== 'Form') continue;
    owners.push({ resources: dictValue(context, object.dict.get(N('Resources'))), content: () => decodeStream(object).data, setResources: (r) => object.dict.set(N('Resources'), r) });
  }
  for (const owner of owners) {
    const xobjects = dictValue(context, owner.resources?.get(N('XObject')));
    if (!owner.resources || !xobjects) continue;
    const listed = xobjects.entries().filter(([, value]) => originals.has(resolve(context, value) as PDFObject));
    if (listed.length === 0) continue;
    let drawn: Set<string>;
    try {
      drawn = new Set(
        parseContent(owner.content())
          .ops.filter((op) => op.op === 'Do' && op.args[0]?.t === 'name')
          .map((op) => (op.args[0] as { v: string }).v),
      );
    } catch (error) {
      if (error instanceof StreamDecodeError) continue; // unreadable content: leave its resources alone
      throw error;
    }
    const unused = listed.filter(([name]) => !drawn.has(name.decodeText()));
    if (unused.length === 0) continue;
    const resources = owner.resources.clone(context);
    const copy = xobjects.clone(context);
    for (const [name] of unused) copy.delete(name);
    resources.set(N('XObject'), copy);
    owner.setResources(resources);
  }
}
