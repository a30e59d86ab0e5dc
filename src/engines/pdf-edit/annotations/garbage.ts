import { PDFArray, PDFDict, PDFRef, PDFStream, type PDFDocument, type PDFObject } from '@cantoo/pdf-lib';

/**
 * Deletes the objects nothing refers to any more. pdf-lib writes every object it holds, so a
 * removed annotation, bookmark or form field would otherwise stay in the file (its text and
 * appearance included) even though no viewer shows it; removing means removing.
 */
export function dropUnreachableObjects(document: PDFDocument): number {
  const { context } = document;
  const reachable = new Set<string>();
  const stack: PDFObject[] = [];
  const { Root, Info, Encrypt, ID } = context.trailerInfo;
  for (const start of [Root, Info, Encrypt, ID]) if (start) stack.push(start);
  while (stack.length > 0) {
    const object = stack.pop()!;
    if (object instanceof PDFRef) {
      if (reachable.has(object.tag)) continue;
      reachable.add(object.tag);
      const target = context.lookup(object);
      if (target) stack.push(target);
    } else if (object instanceof PDFStream) {
      stack.push(object.dict);
    } else if (object instanceof PDFDict) {
      for (const [, value] of object.entries()) stack.push(value);
    } else if (object instanceof PDFArray) {
      for (const item of object.asArray()) stack.push(item); // not push(...): a long array would overflow the stack
    }
  }
  let dropped = 0;
  for (const [ref] of context.enumerateIndirectObjects()) {
    if (!reachable.has(ref.tag)) {
      context.delete(ref);
      dropped++;
    }
  }
  return dropped;
}
