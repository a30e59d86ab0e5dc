import { QuireError } from '../../core/errors.js';
import type { PageSetup } from '../../core/page-setup.js';
import { withChromiumPlaceholders } from '../../engines/chromium/header-footer.js';
import type { UrlConverterPageOptions } from './urlconverter.schema.js';

const MM_PER_UNIT = { mm: 1, in: 25.4, pt: 25.4 / 72, pc: (25.4 / 72) * 12, px: 25.4 / 96 } as const;
/** Larger pages than this (5 m) are refused: Chromium would try to lay them out. */
const MAX_SIDE_MM = 5000;

/** The page in millimetres (default A4 with 20 mm margins, the schema's defaults). */
export function pageSetup(page: UrlConverterPageOptions | undefined): PageSetup {
  if (!page) return { width: 210, height: 297, marginTop: 20, marginRight: 20, marginBottom: 20, marginLeft: 20 };
  const mm = (value: number) => value * MM_PER_UNIT[page.metrics];
  for (const side of ['width', 'height'] as const) {
    if (page[side] <= 0 || mm(page[side]) > MAX_SIDE_MM) throw invalid(`page.${side}`, `a positive size of at most ${MAX_SIDE_MM} mm`);
  }
  for (const margin of ['top', 'right', 'bottom', 'left'] as const) {
    if (page[margin] < 0) throw invalid(`page.${margin}`, 'a margin of 0 or more');
  }
  if (page.left + page.right >= page.width || page.top + page.bottom >= page.height) throw invalid('page', 'margins that leave room for content');
  return { width: mm(page.width), height: mm(page.height), marginTop: mm(page.top), marginRight: mm(page.right), marginBottom: mm(page.bottom), marginLeft: mm(page.left) };
}

/**
 * A header or footer as Chromium's template: the Base64 HTML decoded (or, for `source: "uri"`, the
 * HTML that `fetchUri` gets under the address policy), and webPDF's placeholders mapped onto the
 * classes Chromium fills in (`pageNumber`, `totalPages`, `title`).
 */
export async function headerFooterTemplate(data: { source: string; uri: string; value?: string } | undefined, field: string, fetchUri: (uri: string) => Promise<string>): Promise<string | undefined> {
  if (!data) return undefined;
  if (data.source === 'uri') {
    const uri = data.uri.trim();
    return uri === '' ? undefined : withChromiumPlaceholders(await fetchUri(uri));
  }
  if (data.value === undefined || data.value === '') return undefined;
  if (!/^[A-Za-z0-9+/\s]*={0,2}\s*$/.test(data.value)) throw invalid(`${field}.value`, 'Base64');
  return withChromiumPlaceholders(Buffer.from(data.value, 'base64').toString('utf8'));
}

function invalid(field: string, expected: string): QuireError {
  return new QuireError('PARAMETER', `Invalid parameter urlconverter.${field}: must be ${expected}.`);
}
