/**
 * Issue 19: `GET portal/theme` and its files — the administration's logo, background and theme from the
 * data store, readable without a session so the login page can use them.
 */
import { describe, expect, it } from 'vitest';
import { bearer, login } from '../helpers/client.js';
import { PNG_1X1 } from '../helpers/documents.js';
import { useTestServer } from '../helpers/fixture.js';
import { ADMIN_PASSWORD } from '../helpers/server.js';

interface Theme {
  logo: { url: string; contentType: string };
  background: { url: string; contentType: string } | null;
  theme: Record<string, unknown> | null;
  stylesheet: string | null;
}

describe('the portal theme', () => {
  const { server } = useTestServer({ session: false });
  const origin = () => new URL(server.rest).origin;
  const theme = async (): Promise<Theme> => {
    const response = await fetch(`${server.rest}/portal/theme`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    return (await response.json()) as Theme;
  };
  const store = async (fileGroup: string, content: Buffer) => {
    const { token } = await login(server.rest, { name: 'admin', password: ADMIN_PASSWORD });
    const response = await fetch(`${server.rest}/admin/datastore/`, {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      body: JSON.stringify({ fileGroup, fileContent: content.toString('base64') }),
    });
    expect(response.status).toBe(200);
  };

  it('answers the built-in logo and nothing else on a new server', async () => {
    const answer = await theme();
    expect(answer).toEqual({ logo: { url: '/webPDF/rest/portal/theme/logo', contentType: 'image/svg+xml' }, background: null, theme: null, stylesheet: null });
    const logo = await fetch(`${origin()}${answer.logo.url}`);
    expect(logo.status).toBe(200);
    expect(logo.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(await logo.text()).toContain('<svg');
    // An SVG opened from its URL runs no script on this origin.
    expect(logo.headers.get('content-security-policy')).toMatch(/^sandbox;/);
    const background = await fetch(`${server.rest}/portal/theme/background`);
    expect(background.status).toBe(404);
    expect(((await background.json()) as { errorCode: number }).errorCode).toBe(-125);
  });

  it('shows what the administration stored: a PNG logo, a background, a JSON theme, then a CSS theme', async () => {
    await store('logo', PNG_1X1);
    await store('background', PNG_1X1);
    await store('theme', Buffer.from(JSON.stringify({ primaryColor: '#0a5c36', title: 'Acme PDF' })));
    const answer = await theme();
    expect(answer.logo.contentType).toBe('image/png');
    expect(answer.background).toEqual({ url: '/webPDF/rest/portal/theme/background', contentType: 'image/png' });
    expect(answer.theme).toEqual({ primaryColor: '#0a5c36', title: 'Acme PDF' });
    expect(answer.stylesheet).toBeNull();
    const logo = await fetch(`${origin()}${answer.logo.url}`);
    expect(logo.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await logo.arrayBuffer()).equals(PNG_1X1)).toBe(true);

    await store('theme', Buffer.from(':root { --primary: #0a5c36; }'));
    const css = await theme();
    expect(css.theme).toBeNull();
    expect(css.stylesheet).toBe('/webPDF/rest/portal/theme/stylesheet');
    const sheet = await fetch(`${origin()}${css.stylesheet!}`);
    expect(sheet.headers.get('content-type')).toMatch(/^text\/css/);
    expect(await sheet.text()).toBe(':root { --primary: #0a5c36; }');
  });
});
