import type { ChildNode, Document, Element, ParentNode } from 'domhandler';
import { DomHandler, DomUtils, Parser } from 'htmlparser2';
import { MailEngineError } from './errors.js';

/**
 * Makes a mail's HTML body safe to print: parses it with htmlparser2 into a tree, keeps only elements,
 * attributes and text that cannot run script, frame other documents or submit anything; serializeHtml
 * then writes the tree out with dom-serializer, which escapes all text and attribute values.
 *
 * htmlparser2 is not a WHATWG-conformant parser, so Chromium may build a different tree from the same
 * markup. That is harmless for element nesting; it matters only where the two would *tokenise* our
 * output differently, which is why everything with parser-specific raw-text or foreign-content rules is
 * removed outright (noscript, noembed, noframes, xmp, plaintext, svg, math) along with comments, CDATA
 * and processing instructions. What remains serialises as plain, fully escaped markup.
 *
 * Limits: CSS is kept as written (style elements and attributes, stylesheet links): Chromium runs no
 * script from CSS, but a mail's CSS can restyle or hide our header block. External references (http
 * images, stylesheets) stay; whether they load is the Chromium job's network policy.
 */

/** Removed with everything inside them. */
const DROPPED = new Set([
  // script and embedded documents or plug-ins
  'script',
  'iframe',
  'frame',
  'frameset',
  'object',
  'embed',
  'applet',
  'portal',
  'fencedframe',
  // raw-text and foreign-content rules where htmlparser2 and Chromium tokenise differently
  'noscript',
  'noembed',
  'noframes',
  'xmp',
  'plaintext',
  'svg',
  'math',
  // inert or page-level: templates are never shown; meta can refresh or redirect and declares a
  // charset that is no longer true; base would re-point every relative URL; the title is ours
  'template',
  'meta',
  'base',
  'title',
]);

/**
 * Replaced by their children: the document's own html/head (its head's style sheets join the body),
 * and forms, whose controls and text are content worth printing once they can no longer submit.
 */
const UNWRAPPED = new Set(['html', 'head', 'form']);

/**
 * Deeper elements are replaced by their content, so that the recursive serialiser cannot run out of
 * stack. Chromium builds no deeper tree than this either: it attaches deeper elements at this depth.
 */
const MAX_DEPTH = 512;

/**
 * Deeper nesting is refused while parsing: htmlparser2 keeps its open elements in an array that it
 * unshifts into, so parsing costs the square of the depth (100,000 levels take many seconds).
 */
const MAX_PARSE_DEPTH = 4096;

/** Attribute names as HTML writes them; anything odder is dropped rather than re-serialised. */
const ATTRIBUTE_NAME = /^[a-z_][a-z0-9_:.-]*$/;

/** URL schemes that run script. Checked on every attribute, not a list of URL attributes, so none is missed. */
const SCRIPT_SCHEME = /^(?:javascript|vbscript|livescript):/i;

/** Throws MailEngineError `unreadable` for nesting deeper than MAX_PARSE_DEPTH. */
export function sanitizeHtml(html: string): Document {
  const document = parse(html);
  const pending: Array<{ parent: ParentNode; depth: number }> = [{ parent: document, depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const kept = cleanChildren(next.parent.children, next.depth);
    relink(next.parent, kept);
    for (const child of kept) {
      if (DomUtils.isTag(child)) pending.push({ parent: child, depth: next.depth + 1 });
    }
  }
  return document;
}

function parse(html: string): Document {
  const handler = new DepthLimitedHandler();
  new Parser(handler).end(html);
  return handler.root;
}

/** htmlparser2's tree builder, stopping the parse (by throwing out of it) once the open elements get too deep. */
class DepthLimitedHandler extends DomHandler {
  override onopentag(name: string, attribs: Record<string, string>): void {
    super.onopentag(name, attribs);
    // tagStack holds the document and then the open elements.
    if (this.tagStack.length > MAX_PARSE_DEPTH) {
      throw new MailEngineError('unreadable', `The HTML body nests elements more than ${MAX_PARSE_DEPTH} levels deep.`);
    }
  }
}

/** The sanitised tree as markup: text escaped (`& < >`), attribute values quoted and escaped (`& "`), UTF-8 kept as is. */
export function serializeHtml(document: Document): string {
  return DomUtils.getOuterHTML(document, { encodeEntities: 'utf8' });
}

function cleanChildren(children: readonly ChildNode[], depth: number): ChildNode[] {
  const kept: ChildNode[] = [];
  // A stack in reverse document order, so that an unwrapped element's children take its place in order.
  const stack = [...children].reverse();
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (DomUtils.isText(node)) {
      kept.push(node);
    } else if (DomUtils.isTag(node) && isAllowed(node)) {
      if (UNWRAPPED.has(node.name) || depth >= MAX_DEPTH) {
        for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
      } else {
        // The mail's <body> becomes a <div>: ours is the document's body, its attributes (style...) still apply.
        if (node.name === 'body') node.name = 'div';
        cleanAttributes(node);
        kept.push(node);
      }
    }
    // Anything else (comments, CDATA, doctype and processing instructions) is dropped.
  }
  return kept;
}

function isAllowed(element: Element): boolean {
  if (DROPPED.has(element.name)) return false;
  if (element.name === 'link') return isStylesheet(element);
  if (element.name === 'style') return isRawText(element);
  return true;
}

function cleanAttributes(element: Element): void {
  for (const [name, value] of Object.entries(element.attribs)) {
    if (!ATTRIBUTE_NAME.test(name) || name.startsWith('on') || name === 'srcdoc' || SCRIPT_SCHEME.test(urlForScheme(value))) {
      delete element.attribs[name];
    }
  }
}

/** What a URL parser looks at for the scheme: it ignores tabs and newlines anywhere and leading controls and spaces. */
function urlForScheme(value: string): string {
  return value.replace(/[\t\n\r]/g, '').replace(/^[\u0000-\u0020]+/, '');
}

/**
 * A <style> is written out unescaped, so it must hold nothing but text that cannot close it. The
 * tokeniser guarantees that; checking it here keeps the guarantee independent of htmlparser2's internals.
 */
function isRawText(style: Element): boolean {
  return style.children.every((child) => DomUtils.isText(child) && !/<\/style/i.test(child.data));
}

function isStylesheet(link: Element): boolean {
  return (link.attribs.rel ?? '').toLowerCase().split(/\s+/).includes('stylesheet');
}

/**
 * Makes `kept` the parent's children with consistent links. The parent pointer matters for safety:
 * dom-serializer writes the text of a node whose parent is <style> unescaped, so a text node moved
 * out of an unwrapped element must not keep pointing at its old parent.
 */
function relink(parent: ParentNode, kept: ChildNode[]): void {
  kept.forEach((node, index) => {
    node.parent = parent;
    node.prev = kept[index - 1] ?? null;
    node.next = kept[index + 1] ?? null;
  });
  parent.children = kept;
}
