/**
 * The `Operation_Svg` / `Operation_SvgFormat` options applied to pdftocairo's SVG (a regular,
 * machine-written dialect: one element per line, attribute values in double quotes):
 *
 * - `decimalPrecision`: coordinates (path data, positions, sizes, transforms) rounded to that many
 *   decimals (cairo writes up to six).
 * - `pathDrawMode`: `verbose` writes every path segment with its command letter and spaces
 *   ("M 10 20 L 30 40 L 50 60 Z"); `compact` the shortest equivalent ("M10 20L30 40 50 60Z":
 *   repeated commands and an L after M implied, no optional spaces, no leading zeros).
 * - `graphicsStateMode`: `verbose` leaves the graphics state (fill, stroke, opacity, …) on every
 *   element that sets it; `centralize` declares each distinct state once, as a CSS class in a
 *   <style> element, and the elements refer to it.
 *
 * Besides, the image gets its pixel size (width/height of the root; the viewBox keeps the page
 * geometry), and ids can be prefixed so that several pages can live in one HTML document.
 */
export interface SvgFormat {
  decimalPrecision: number;
  pathDrawMode: 'verbose' | 'compact';
  graphicsStateMode: 'verbose' | 'centralize';
}

export interface SvgShape extends SvgFormat {
  /** Size of the image in pixels. */
  width: number;
  height: number;
  /** Prefix for every id (and reference to it), e.g. "p3-"; "" for none. */
  idPrefix: string;
}

const ROOT = /<svg\b[^>]*>/;
const COORDINATE_ATTRIBUTES = /\s(x|y|width|height|x1|y1|x2|y2|cx|cy|r|rx|ry|fx|fy|points|transform|gradientTransform|patternTransform)="([^"]*)"/g;
const PRESENTATION = new Set([
  'fill',
  'fill-rule',
  'fill-opacity',
  'stroke',
  'stroke-width',
  'stroke-linecap',
  'stroke-linejoin',
  'stroke-miterlimit',
  'stroke-opacity',
  'stroke-dasharray',
  'stroke-dashoffset',
  'opacity',
  'clip-rule',
  'color',
]);

export function formatSvg(svg: string, shape: SvgShape): string {
  const rootMatch = ROOT.exec(svg);
  if (!rootMatch) return svg;
  const head = svg.slice(0, rootMatch.index);
  let root = rootMatch[0];
  let body = svg.slice(rootMatch.index + root.length);

  // Root: pixel size; the viewBox (page in points) stays, so the content scales.
  root = setAttribute(setAttribute(root, 'width', String(shape.width)), 'height', String(shape.height));

  body = body.replace(/\sd="([^"]*)"/g, (_whole, data: string) => ` d="${formatPath(data, shape)}"`);
  body = body.replace(COORDINATE_ATTRIBUTES, (_whole, name: string, value: string) => ` ${name}="${roundNumbers(value, shape.decimalPrecision, false)}"`);

  if (shape.idPrefix !== '') {
    const prefix = shape.idPrefix;
    body = body
      .replace(/\sid="([^"]+)"/g, (_w, id: string) => ` id="${prefix}${id}"`)
      .replace(/(\s(?:xlink:)?href=")#([^"]+)"/g, (_w, start: string, id: string) => `${start}#${prefix}${id}"`)
      .replace(/url\(#([^)]+)\)/g, (_w, id: string) => `url(#${prefix}${id})`);
  }

  if (shape.graphicsStateMode === 'centralize') body = centralize(body, shape.idPrefix);
  return head + root + body;
}

/** Moves style attributes and presentation attributes into shared CSS classes (one per distinct state). */
function centralize(body: string, prefix: string): string {
  const classes = new Map<string, string>();
  const out = body.replace(/<([a-zA-Z][\w:-]*)((?:\s+[\w:-]+="[^"]*")*)\s*(\/?)>/g, (whole, name: string, attributes: string, selfClosing: string) => {
    if (name === 'style' || name === 'svg') return whole;
    const declarations: string[] = [];
    const kept: string[] = [];
    for (const match of attributes.matchAll(/\s+([\w:-]+)="([^"]*)"/g)) {
      const [, key, value] = match as unknown as [string, string, string];
      if (key === 'style') {
        for (const part of value.split(';')) if (part.trim() !== '') declarations.push(part.trim());
      } else if (PRESENTATION.has(key)) {
        declarations.push(`${key}:${value}`);
      } else {
        kept.push(` ${key}="${value}"`);
      }
    }
    if (declarations.length === 0) return whole;
    const rule = declarations.join(';');
    let className = classes.get(rule);
    if (className === undefined) {
      className = `${prefix}gs${classes.size}`;
      classes.set(rule, className);
    }
    return `<${name}${kept.join('')} class="${className}"${selfClosing === '/' ? '/' : ''}>`;
  });
  if (classes.size === 0) return out;
  const css = [...classes].map(([rule, className]) => `.${className}{${rule}}`).join('\n');
  return `\n<style type="text/css"><![CDATA[\n${css}\n]]></style>${out}`;
}

const ARGUMENTS: Readonly<Record<string, number>> = { m: 2, l: 2, t: 2, h: 1, v: 1, c: 6, s: 4, q: 4, a: 7, z: 0 };
const TOKEN = /([MmZzLlHhVvCcSsQqTtAa])|([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)/g;

/** Path data re-written in the requested mode and precision. */
export function formatPath(data: string, format: SvgFormat): string {
  const segments: { command: string; args: number[] }[] = [];
  let command = '';
  let args: number[] = [];
  for (const match of data.matchAll(TOKEN)) {
    if (match[1] !== undefined) {
      // A new command; an unfinished segment before it is malformed and dropped.
      command = match[1];
      args = [];
      if (ARGUMENTS[command.toLowerCase()] === 0) {
        segments.push({ command, args: [] });
        command = '';
      }
      continue;
    }
    if (command === '') continue; // a number without a command: not a valid path; dropped
    args.push(Number(match[2]));
    if (args.length === ARGUMENTS[command.toLowerCase()]) {
      segments.push({ command, args });
      args = [];
      // Further pairs after a moveto are linetos; other commands repeat themselves.
      command = command === 'M' ? 'L' : command === 'm' ? 'l' : command;
    }
  }

  const compact = format.pathDrawMode === 'compact';
  const out: string[] = [];
  let previous = '';
  for (const segment of segments) {
    const implied =
      compact &&
      previous !== '' &&
      ((segment.command === previous && segment.command.toLowerCase() !== 'm' && segment.command.toLowerCase() !== 'z') ||
        (segment.command === 'L' && previous === 'M') ||
        (segment.command === 'l' && previous === 'm'));
    const numbers = segment.args.map((n) => formatNumber(n, format.decimalPrecision, compact));
    if (compact) {
      let text = implied ? '' : segment.command;
      numbers.forEach((n, i) => {
        text += (i === 0 && !implied) || n.startsWith('-') ? n : ` ${n}`;
      });
      out.push(text);
    } else {
      out.push([segment.command, ...numbers].join(' '));
    }
    previous = segment.command;
  }
  return compact ? out.join('').trim() : out.join(' ');
}

function roundNumbers(value: string, precision: number, compact: boolean): string {
  return value.replace(/[-+]?(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?/g, (n) => formatNumber(Number(n), precision, compact));
}

export function formatNumber(value: number, precision: number, compact: boolean): string {
  const factor = 10 ** precision;
  let rounded = Math.round(value * factor) / factor;
  if (Object.is(rounded, -0)) rounded = 0;
  let text = rounded.toFixed(precision);
  if (text.includes('.')) text = text.replace(/0+$/, '').replace(/\.$/, '');
  if (text === '-0') text = '0';
  if (compact) text = text.replace(/^(-?)0\./, '$1.');
  return text;
}

function setAttribute(tag: string, name: string, value: string): string {
  const pattern = new RegExp(`\\s${name}="[^"]*"`);
  return pattern.test(tag) ? tag.replace(pattern, ` ${name}="${value}"`) : tag.replace(/^<svg/, `<svg ${name}="${value}"`);
}
