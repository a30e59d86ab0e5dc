import type { PdfStructureTool } from '../contracts.js';
import { listPages } from '../pdf/page-count.js';
import { QpdfRunner, type QpdfCall } from '../pdf/qpdf.js';
import { ObjectFetcher, asArray, asDict, asName, asNumber, asText, asTextOrName, isRef, parseJson, type QDict, type QValue } from '../pdf/qpdf-json.js';
import { PopplerError } from './errors.js';
import { toViewRect, type PageGeometry } from './geometry.js';
import type { ToolLimits } from './tool.js';

/**
 * Link annotations of a PDF, read with qpdf's JSON (the file is never loaded into memory): pages,
 * their /Annots, the link actions and — for named destinations — the catalog's /Dests dictionary or
 * /Names /Dests name tree, fetched object by object in batches.
 */

export type LinkKind = 'uri' | 'goTo' | 'goToR' | 'goToE' | 'launch' | 'named' | 'javaScript' | 'other' | 'none';

export interface AnnotationLink {
  /** 1-based page of the annotation. */
  page: number;
  kind: LinkKind;
  /** uri: the URI; goToR/launch: the file; named: the action name (NextPage …); javaScript: the script. */
  target: string;
  /** goTo: the destination page (1-based), 0 when it cannot be resolved; goToR: the remote page as given. */
  destinationPage: number;
  /** The destination's view (XYZ, Fit, FitH, …) or "" */
  destinationView: string;
  /** The named destination, if the link used one. */
  destinationName: string;
  /** The annotation's /Rect in PDF user space [x1 y1 x2 y2]. */
  rect: [number, number, number, number];
}

export interface LinkReadOptions extends ToolLimits {
  /** Bound of one qpdf JSON output. */
  maxJsonBytes: number;
  /** Most annotations looked at (all pages together); more is `tooLarge`. */
  maxAnnotations: number;
  /** The server's one configured qpdf runner; default: a runner of its own (engine tests). */
  qpdf?: PdfStructureTool;
}

/** The link annotations of the given pages (1-based, in that order). */
export async function readLinks(file: string, pages: readonly number[], options: LinkReadOptions): Promise<AnnotationLink[]> {
  const qpdf = options.qpdf ?? new QpdfRunner({ qpdfPath: 'qpdf', timeoutMs: options.toolTimeoutMs });
  const call: QpdfCall = { deadline: options.deadline };
  // The pages from qpdf's walk of the page tree, not --json-key=pages: that follows outline items and
  // loops on an outline cycle (issue 11).
  const [json, listing] = await Promise.all([qpdf.run(['--json=2', '--json-key=qpdf', '--json-object=trailer', file], { ...call, maxOutputBytes: options.maxJsonBytes }), listPages(qpdf, file, call)]);
  const main = parseJson(json.stdout);
  const allPages = listing.refs;
  const pageNumbers = new Map(allPages.map((ref, index) => [ref, index + 1]));
  const objects = asDict(asArray(main.qpdf)?.[1]) ?? {};
  const trailer = asDict(asDict(objects['trailer'])?.value) ?? {};
  const fetcher = new ObjectFetcher(qpdf, file, call, 2000, options.maxJsonBytes);

  const selected = pages.map((page) => ({ page, ref: allPages[page - 1] })).filter((entry): entry is { page: number; ref: string } => entry.ref !== undefined);
  await fetcher.fetch(selected.map((entry) => entry.ref));

  // /Annots arrays, then the annotations, then their actions (each step one batch).
  const annotsOf = new Map<number, QValue[]>();
  await fetcher.fetch(selected.map((entry) => asDict(fetcher.get(entry.ref))?.['/Annots']).filter(isRef));
  let total = 0;
  for (const { page, ref } of selected) {
    const list = asArray(fetcher.peek(asDict(fetcher.get(ref))?.['/Annots'])) ?? [];
    total += list.length;
    if (total > options.maxAnnotations) {
      throw new PopplerError('tooLarge', `The selected pages carry more than ${options.maxAnnotations} annotations; select fewer pages.`);
    }
    annotsOf.set(page, list);
  }
  await fetcher.fetch([...annotsOf.values()].flat().filter(isRef));
  const links: { page: number; dict: QDict }[] = [];
  for (const { page } of selected) {
    for (const item of annotsOf.get(page) ?? []) {
      const dict = asDict(fetcher.peek(item));
      if (dict && asName(dict['/Subtype']) === 'Link') links.push({ page, dict });
    }
  }
  await fetcher.fetch(links.flatMap(({ dict }) => [dict['/A'], dict['/Dest']]).filter(isRef));

  const root = asDict(await fetcher.resolve(trailer['/Root'])) ?? {};
  const names = new NamedDestinations(fetcher, root);
  const out: AnnotationLink[] = [];
  for (const { page, dict } of links) {
    const rect = (asArray(fetcher.peek(dict['/Rect'])) ?? []).map((v) => asNumber(fetcher.peek(v)) ?? 0);
    const link: AnnotationLink = {
      page,
      kind: 'none',
      target: '',
      destinationPage: 0,
      destinationView: '',
      destinationName: '',
      rect: [rect[0] ?? 0, rect[1] ?? 0, rect[2] ?? 0, rect[3] ?? 0],
    };
    const action = asDict(await fetcher.resolve(dict['/A']));
    if (action) {
      await describeAction(link, action, fetcher, names, pageNumbers);
    } else if (dict['/Dest'] !== undefined) {
      link.kind = 'goTo';
      await describeDestination(link, await fetcher.resolve(dict['/Dest']), fetcher, names, pageNumbers, false);
    }
    out.push(link);
  }
  return out;
}

async function describeAction(link: AnnotationLink, action: QDict, fetcher: ObjectFetcher, names: NamedDestinations, pageNumbers: Map<string, number>): Promise<void> {
  const type = asName(action['/S']) ?? '';
  switch (type) {
    case 'URI':
      link.kind = 'uri';
      link.target = asTextOrName(await fetcher.resolve(action['/URI'])) ?? '';
      return;
    case 'GoTo':
      link.kind = 'goTo';
      await describeDestination(link, await fetcher.resolve(action['/D']), fetcher, names, pageNumbers, false);
      return;
    case 'GoToR':
    case 'GoToE':
      link.kind = type === 'GoToR' ? 'goToR' : 'goToE';
      link.target = await fileSpecification(await fetcher.resolve(action['/F']), fetcher);
      await describeDestination(link, await fetcher.resolve(action['/D']), fetcher, names, pageNumbers, true);
      return;
    case 'Launch':
      link.kind = 'launch';
      link.target = await fileSpecification(await fetcher.resolve(action['/F']), fetcher);
      return;
    case 'Named':
      link.kind = 'named';
      link.target = asName(action['/N']) ?? '';
      return;
    case 'JavaScript':
      link.kind = 'javaScript';
      link.target = (asText(await fetcher.resolve(action['/JS'])) ?? '').slice(0, 4096);
      return;
    default:
      link.kind = 'other';
      link.target = type;
  }
}

async function describeDestination(
  link: AnnotationLink,
  value: QValue | undefined,
  fetcher: ObjectFetcher,
  names: NamedDestinations,
  pageNumbers: Map<string, number>,
  remote: boolean,
): Promise<void> {
  let destination = value;
  const name = asTextOrName(value);
  if (name !== undefined && !remote) {
    link.destinationName = name;
    destination = await names.lookup(name, typeof value === 'string' && value.startsWith('/'));
  } else if (name !== undefined) {
    link.destinationName = name;
    return;
  }
  // A destination dictionary (/D [...]) as /Dests entries may be.
  const dict = asDict(destination);
  if (dict) destination = await fetcher.resolve(dict['/D']);
  const array = asArray(destination);
  if (!array || array.length === 0) return;
  const target = array[0];
  if (isRef(target)) link.destinationPage = pageNumbers.get(target) ?? 0;
  else if (asNumber(target) !== undefined) link.destinationPage = Math.trunc(asNumber(target)!) + 1; // a page index (0-based), as remote destinations give it
  link.destinationView = asName(array[1]) ?? '';
}

async function fileSpecification(value: QValue | undefined, fetcher: ObjectFetcher): Promise<string> {
  const text = asText(value);
  if (text !== undefined) return text;
  const dict = asDict(value);
  if (!dict) return '';
  for (const key of ['/UF', '/F', '/Unix', '/DOS', '/Mac']) {
    const found = asText(await fetcher.resolve(dict[key]));
    if (found !== undefined) return found;
  }
  return '';
}

/** Named destinations: PDF 1.1's /Dests dictionary (for names) and the /Names /Dests tree (for strings). */
class NamedDestinations {
  constructor(
    private readonly fetcher: ObjectFetcher,
    private readonly root: QDict,
  ) {}

  async lookup(name: string, isName: boolean): Promise<QValue | undefined> {
    if (isName) {
      const dests = asDict(await this.fetcher.resolve(this.root['/Dests']));
      const found = dests?.[`/${name}`];
      if (found !== undefined) return this.fetcher.resolve(found);
    }
    const namesDict = asDict(await this.fetcher.resolve(this.root['/Names']));
    return this.searchTree(await this.fetcher.resolve(namesDict?.['/Dests']), name, 0, new Set());
  }

  /** Each node is searched once: a /Kids loop or a node listed twice cannot make the search endless (issue 11). */
  private async searchTree(nodeValue: QValue | undefined, name: string, depth: number, visited: Set<QDict>): Promise<QValue | undefined> {
    const node = asDict(nodeValue);
    if (!node || depth > 32 || visited.has(node) || visited.size > 100_000) return undefined;
    visited.add(node);
    const pairs = asArray(node['/Names']);
    if (pairs) {
      for (let i = 0; i + 1 < pairs.length; i += 2) {
        if (asText(pairs[i]) === name) return this.fetcher.resolve(pairs[i + 1]);
      }
    }
    const kids = asArray(node['/Kids']) ?? [];
    for (const kid of kids) {
      const child = asDict(await this.fetcher.resolve(kid));
      const limits = asArray(child?.['/Limits']);
      const low = asText(limits?.[0]);
      const high = asText(limits?.[1]);
      if (low !== undefined && high !== undefined && (name < low || name > high)) continue;
      const found = await this.searchTree(child, name, depth + 1, visited);
      if (found !== undefined) return found;
    }
    return undefined;
  }
}

/** A link's rectangle in the coordinates of the text output (top-left origin of the page as shown). */
export function linkBox(link: AnnotationLink, geometry: PageGeometry): { x: number; y: number; width: number; height: number } {
  return toViewRect(geometry, link.rect);
}

// ---- links written as text ----

export interface TextLinkRules {
  /** Schemes a link found in the text must have ("" = any), e.g. "https" or "http,https". */
  protocol: string;
  /** Also take links written without a scheme: "www.example.org" and e-mail addresses. */
  withoutProtocol: boolean;
}

const WITH_SCHEME = /^([a-z][a-z0-9+.-]*):\/\/[^\s]+$|^(mailto|tel|urn):[^\s]+$/i;
const WWW = /^www\.[a-z0-9-]+(\.[a-z0-9-]+)+([/?#][^\s]*)?$/i;
const EMAIL = /^[a-z0-9._%+-]+@[a-z0-9-]+(\.[a-z0-9-]+)*\.[a-z]{2,}$/i;
const TRAILING = /[.,;:!?)\]}'"»”’]+$/u;
const LEADING = /^[([{'"«“‘<]+/u;

/**
 * A URL written in a word of the text, or undefined. Returns the link as written (an e-mail address
 * as mailto:…), without brackets or sentence punctuation around it.
 */
export function linkInWord(word: string, rules: TextLinkRules): { uri: string; scheme: string } | undefined {
  const candidate = word.replace(LEADING, '').replace(TRAILING, '').replace(/[>]+$/, '');
  if (candidate.length < 4) return undefined;
  const schemes = rules.protocol
    .split(',')
    .map((s) =>
      s
        .trim()
        .toLowerCase()
        .replace(/:(\/\/)?$/, ''),
    )
    .filter((s) => s !== '');
  const scheme = WITH_SCHEME.exec(candidate);
  if (scheme) {
    const name = (scheme[1] ?? scheme[2] ?? '').toLowerCase();
    if (schemes.length > 0 && !schemes.includes(name)) return undefined;
    return { uri: candidate, scheme: name };
  }
  if (!rules.withoutProtocol) return undefined;
  if (WWW.test(candidate)) return { uri: candidate, scheme: '' };
  if (EMAIL.test(candidate)) return { uri: `mailto:${candidate}`, scheme: '' };
  return undefined;
}
