import { QuireError } from '../../core/errors.js';
import { PageSelectionError, parsePageSelection, resolvePageSelection } from '../../core/page-selection.js';

/**
 * The pages a toolbox option selects, validated against the document: `""`/`"*"` all, `"1-3,5"`,
 * `"last"`. Errors name the field (`toolbox[0].rotate.pages`) and the page count (-14).
 */
export function selectPages(text: string | undefined, pageCount: number, field: string): number[] {
  try {
    return resolvePageSelection(parsePageSelection(text ?? ''), pageCount);
  } catch (error) {
    if (error instanceof PageSelectionError) throw new QuireError('PARAMETER', `Invalid parameter ${field}: ${error.message}`);
    throw error;
  }
}

/** Checks a single page number against the document (e.g. merge's `page`). */
export function requirePage(page: number, pageCount: number, field: string): number {
  if (!Number.isInteger(page) || page < 1 || page > pageCount) {
    throw new QuireError('PARAMETER', `Invalid parameter ${field}: page ${page} is out of range: the document has ${pageCount} page${pageCount === 1 ? '' : 's'}.`);
  }
  return page;
}
