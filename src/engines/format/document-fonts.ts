import { listEntries, openEntry } from '../archive/index.js';

const MAX_PART_BYTES = 8 * 1024 * 1024;
const MAX_PARTS = 200;

/** Fonts a theme names with a "+mj"/"+mn" placeholder or a symbol font are not real requests. */
const IGNORED = /^(\+m[jn]-|Symbol$|Wingdings|Webdings)/i;

/**
 * The font families an Office Open XML or OpenDocument file asks for in its text, styles and
 * themes (not merely lists: Word's font table names fonts nobody uses). Read from the package with
 * bounded reads; other formats, damaged packages and oversized parts give an empty list.
 */
export async function requestedFonts(file: string, typeKey: string): Promise<string[]> {
  const parts = partsOf(typeKey);
  if (!parts) return [];
  const found = new Set<string>();
  try {
    const { entries } = await listEntries(file, { maxEntries: 20_000 });
    const names = entries
      .map((e) => e.path)
      .filter(parts.select)
      .slice(0, MAX_PARTS);
    for (const name of names) {
      const xml = await readPart(file, name);
      if (xml === undefined) continue;
      for (const font of parts.extract(xml)) if (font && !IGNORED.test(font)) found.add(font);
    }
  } catch {
    return [];
  }
  return [...found].sort();
}

interface Parts {
  select: (path: string) => boolean;
  extract: (xml: string) => string[];
}

function partsOf(typeKey: string): Parts | undefined {
  if (['docx', 'dotx', 'docm', 'dotm'].includes(typeKey)) {
    return {
      select: (p) => /^word\/(document|styles|header\d*|footer\d*|footnotes|endnotes)\.xml$/.test(p),
      // w:rFonts carries up to four scripts; the theme-font attributes (asciiTheme, ...) are not names.
      extract: (xml) => attributes(xml, /<w:rFonts\b[^>]*>/g, /\bw:(?:ascii|hAnsi|eastAsia|cs)="([^"]+)"/g),
    };
  }
  if (['xlsx', 'xltx', 'xlsm', 'xltm'].includes(typeKey)) {
    return { select: (p) => p === 'xl/styles.xml', extract: (xml) => attributes(xml, /<name\b[^>]*>/g, /\bval="([^"]+)"/g) };
  }
  if (['pptx', 'potx', 'pptm', 'potm', 'ppsx', 'ppsm'].includes(typeKey)) {
    return {
      select: (p) => /^ppt\/(slides\/slide\d+|slideMasters\/slideMaster\d+|theme\/theme\d+)\.xml$/.test(p),
      extract: (xml) => attributes(xml, /<a:(?:latin|ea|cs)\b[^>]*>/g, /\btypeface="([^"]+)"/g),
    };
  }
  if (['odt', 'ods', 'odp', 'ott', 'ots', 'otp', 'odg'].includes(typeKey)) {
    return {
      select: (p) => p === 'content.xml' || p === 'styles.xml',
      // Styles refer to font faces by style:font-name; the face declares the family it stands for.
      extract: (xml) => {
        const used = new Set(attributes(xml, /<style:text-properties\b[^>]*>/g, /\bstyle:font-name(?:-asian|-complex)?="([^"]+)"/g));
        const faces = new Map<string, string>();
        for (const tag of xml.match(/<style:font-face\b[^>]*>/g) ?? []) {
          const name = /\bstyle:name="([^"]+)"/.exec(tag)?.[1];
          const family = /\bsvg:font-family="([^"]+)"/.exec(tag)?.[1];
          if (name && family) faces.set(decode(name), decode(family).replace(/^['"]|['"]$/g, ''));
        }
        return [...used].map((name) => faces.get(name) ?? name);
      },
    };
  }
  return undefined;
}

function attributes(xml: string, tags: RegExp, attribute: RegExp): string[] {
  const values: string[] = [];
  for (const tag of xml.match(tags) ?? []) {
    for (const match of tag.matchAll(attribute)) values.push(decode(match[1]!));
  }
  return values;
}

function decode(text: string): string {
  return text
    .replace(/&apos;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .trim();
}

async function readPart(file: string, name: string): Promise<string | undefined> {
  const { stream } = await openEntry(file, name);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_PART_BYTES) {
      stream.destroy();
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
