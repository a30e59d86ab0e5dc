/**
 * The administration's theme (data store: logo, colours), read from the public theme endpoint. Colours
 * are applied as CSS custom properties through the CSSOM (the CSP allows no inline style attribute;
 * setProperty is not one). A value that is not a plain colour is ignored.
 */
export interface Theme {
  logo?: string;
  name?: string;
}

const COLOR = /^(#[0-9a-fA-F]{3,8}|rgba?\([\d\s.,%]+\)|hsla?\([\d\s.,%deg]+\))$/;

export async function loadTheme(): Promise<Theme> {
  try {
    const response = await fetch('/webPDF/rest/portal/theme', { credentials: 'omit' });
    if (!response.ok) return {};
    const theme = (await response.json()) as Record<string, unknown>;
    const colors = (theme.colors ?? theme) as Record<string, unknown>;
    for (const [name, property] of [
      ['primary', '--accent'],
      ['primaryColor', '--accent'],
      ['background', '--bg'],
      ['backgroundColor', '--bg'],
    ] as const) {
      const value = colors[name];
      if (typeof value === 'string' && COLOR.test(value.trim())) document.documentElement.style.setProperty(property, value.trim());
    }
    const logo = [theme.logo, theme.logoUrl].find((value): value is string => typeof value === 'string' && /^(\/webPDF\/|data:image\/(png|jpeg|gif|webp);)/.test(value));
    return { ...(logo ? { logo } : {}), ...(typeof theme.name === 'string' ? { name: theme.name } : {}) };
  } catch {
    return {};
  }
}
