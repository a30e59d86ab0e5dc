/**
 * The administration's look (GET portal/theme: logo, background, theme from the data store). Colours
 * of a JSON theme become CSS custom properties set through the CSSOM (the CSP allows no inline style
 * attribute; setProperty is not one); a value that is not a plain colour is ignored. A theme stored as
 * CSS is linked as a stylesheet of this origin (style-src 'self'). Images are same-origin paths shown
 * by <img> or CSS, where an SVG cannot run script.
 */
export interface Theme {
  logo?: string;
}

interface ThemeAnswer {
  logo?: { url: string } | null;
  background?: { url: string } | null;
  theme?: Record<string, unknown> | null;
  stylesheet?: string | null;
}

const COLOR = /^(#[0-9a-fA-F]{3,8}|rgba?\([\d\s.,%]+\)|hsla?\([\d\s.,%deg]+\))$/;
/** Theme keys the portal understands, and the custom property each sets. */
const PROPERTIES: Record<string, string> = {
  primary: '--accent',
  primaryColor: '--accent',
  accent: '--accent',
  background: '--bg',
  backgroundColor: '--bg',
  text: '--text',
  textColor: '--text',
};

const sameOrigin = (url: unknown): url is string => typeof url === 'string' && url.startsWith('/') && !url.startsWith('//');

export async function loadTheme(): Promise<Theme> {
  try {
    const response = await fetch('/webPDF/rest/portal/theme', { credentials: 'omit' });
    if (!response.ok) return {};
    const answer = (await response.json()) as ThemeAnswer;
    const root = document.documentElement.style;
    // A reload (after the data store page changed the theme) starts from the portal's own look: what
    // the previous theme set and the new one no longer sets must not stay.
    for (const property of new Set([...Object.values(PROPERTIES), '--background-image'])) root.removeProperty(property);
    const values = { ...answer.theme, ...((answer.theme?.colors as Record<string, unknown> | undefined) ?? {}) };
    for (const [key, property] of Object.entries(PROPERTIES)) {
      const value = values[key];
      if (typeof value === 'string' && COLOR.test(value.trim())) root.setProperty(property, value.trim());
    }
    if (sameOrigin(answer.background?.url)) root.setProperty('--background-image', `url("${answer.background.url}")`);
    linkStylesheet(sameOrigin(answer.stylesheet) ? answer.stylesheet : undefined);
    return sameOrigin(answer.logo?.url) ? { logo: answer.logo.url } : {};
  } catch {
    return {};
  }
}

const STYLESHEET_ID = 'quire-theme-stylesheet';

/** One link element for the theme's stylesheet, pointed at the current one or removed (never one more per reload). */
function linkStylesheet(href: string | undefined): void {
  let link = document.getElementById(STYLESHEET_ID) as HTMLLinkElement | null;
  if (href === undefined) {
    link?.remove();
    return;
  }
  if (!link) {
    link = document.createElement('link');
    link.id = STYLESHEET_ID;
    link.rel = 'stylesheet';
    document.head.append(link);
  }
  if (link.getAttribute('href') !== href) link.href = href;
}
