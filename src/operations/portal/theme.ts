import type { DataStore } from '../admin/datastore.js';

/** The administration's look of the portal, from its data store (logo, background, theme). */
export interface PortalTheme {
  /** The stored logo, or the built-in one. */
  logo: { contentType: string };
  /** Absent: none stored. */
  background?: { contentType: string };
  /** A theme stored as a JSON object: its members as stored (colours, names: the portal decides what it reads). */
  theme?: Record<string, unknown>;
  /** A theme stored as CSS: the portal links it as a style sheet. */
  stylesheet: boolean;
}

export type ThemeImage = 'logo' | 'background';

/**
 * Reads the data store for the portal's login page and layout. The store accepts only images of the
 * formats below for logo and background, and a JSON object or CSS for the theme (datastore.ts checks
 * the content on write), so the type is told from the first bytes.
 */
export class PortalThemes {
  constructor(private readonly store: Pick<DataStore, 'read'>) {}

  async theme(): Promise<PortalTheme> {
    const [logo, background, theme] = await Promise.all([this.store.read('logo'), this.store.read('background'), this.store.read('theme')]);
    const parsed = parseTheme(theme.content);
    return {
      logo: { contentType: imageType(logo.content) },
      ...(background.content.length > 0 ? { background: { contentType: imageType(background.content) } } : {}),
      ...(parsed.json ? { theme: parsed.json } : {}),
      stylesheet: parsed.css !== undefined,
    };
  }

  /** The image's bytes and type; undefined when no background is stored. */
  async image(which: ThemeImage): Promise<{ content: Buffer; contentType: string } | undefined> {
    const { content } = await this.store.read(which);
    return content.length > 0 ? { content, contentType: imageType(content) } : undefined;
  }

  /** The theme when it is CSS. */
  async stylesheet(): Promise<string | undefined> {
    return parseTheme((await this.store.read('theme')).content).css;
  }
}

function parseTheme(content: Buffer): { json?: Record<string, unknown>; css?: string } {
  if (content.length === 0) return {};
  const text = content.toString('utf8').trim();
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return { json: value as Record<string, unknown> };
  } catch {
    // Not JSON: the store accepted it as CSS.
  }
  return { css: text };
}

/** The Content-Type of a stored image, by its signature; SVG is the one text format the store takes. */
function imageType(content: Buffer): string {
  if (content.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (content[0] === 0xff && content[1] === 0xd8 && content[2] === 0xff) return 'image/jpeg';
  if (content.toString('latin1', 0, 4) === 'GIF8') return 'image/gif';
  if (content.toString('latin1', 0, 4) === 'RIFF' && content.toString('latin1', 8, 12) === 'WEBP') return 'image/webp';
  if (content.toString('latin1', 0, 2) === 'BM') return 'image/bmp';
  return 'image/svg+xml';
}
