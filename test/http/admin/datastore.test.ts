import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, expectError, login } from '../../helpers/client.js';
import { openSession, tree, type TestSession } from '../../helpers/documents.js';
import { useTestServer } from '../../helpers/fixture.js';
import { ADMIN_PASSWORD } from '../../helpers/server.js';
import { numberedPdf } from '../../helpers/toolbox.js';

const DEFAULT_LOGO = readFileSync(path.join(import.meta.dirname, '../../../resources/default-logo.svg'));
const MAX_FILE_SIZE = 64 * 1024;

interface FileDataStore {
  fileGroup: string;
  fileContent: string;
  fileName?: string;
}

function image(format: 'png' | 'jpeg' | 'webp', width = 40): Promise<Buffer> {
  return sharp({ create: { width, height: 20, channels: 3, background: { r: 200, g: 40, b: 90 } } })
    .toFormat(format)
    .toBuffer();
}

describe('admin/datastore', () => {
  const { server } = useTestServer({ env: { QUIRE_DATASTORE__MAX_FILE_SIZE: '64KB' }, session: false });
  let admin: string;
  let user: TestSession;

  beforeAll(async () => {
    admin = (await login(server.rest, { name: 'admin', password: ADMIN_PASSWORD })).token;
    user = await openSession(server.rest);
  });

  const groupDir = (group: string) => path.join(server.dataDir, 'datastore', group);

  function get(group: string, query = '', token = admin): Promise<Response> {
    return fetch(`${server.rest}/admin/datastore/${group}${query}`, { headers: { ...bearer(token), accept: 'application/json' } });
  }

  function post(body: unknown, token = admin): Promise<Response> {
    // The clients send this one with a trailing slash.
    return fetch(`${server.rest}/admin/datastore/`, {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
    });
  }

  function remove(group: string, query = '', token = admin): Promise<Response> {
    return fetch(`${server.rest}/admin/datastore/${group}${query}`, { method: 'DELETE', headers: bearer(token) });
  }

  async function read(group: string, query = ''): Promise<FileDataStore> {
    const response = await get(group, query);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    return (await response.json()) as FileDataStore;
  }

  async function store(body: FileDataStore): Promise<FileDataStore> {
    const response = await post(body);
    expect(response.status, await response.clone().text()).toBe(200);
    return (await response.json()) as FileDataStore;
  }

  it('answers the built-in logo, stores a new one, and restores the default on delete', async () => {
    const initial = await read('logo');
    expect(initial).toEqual({ fileGroup: 'logo', fileContent: DEFAULT_LOGO.toString('base64') });

    const png = await image('png');
    const stored = await store({ fileGroup: 'logo', fileContent: png.toString('base64') });
    expect(stored).toEqual({ fileGroup: 'logo', fileContent: png.toString('base64') });
    expect((await read('logo')).fileContent).toBe(png.toString('base64'));
    // Independently: the file on disk is that PNG, and nothing half-written lies next to it.
    const onDisk = readFileSync(path.join(groupDir('logo'), 'content'));
    expect(onDisk.equals(png)).toBe(true);
    expect((await sharp(onDisk).metadata()).format).toBe('png');
    expect(readdirSync(groupDir('logo'))).toEqual(['content']);

    const deleted = await remove('logo');
    expect(deleted.status).toBe(200);
    expect(await deleted.text()).toBe('');
    expect(await read('logo')).toEqual(initial);
    expect(readdirSync(groupDir('logo'))).toEqual([]);
    // Deleting what is not there is fine for the single-file groups.
    expect((await remove('logo')).status).toBe(200);
  });

  it('stores a background image and forgets it on delete', async () => {
    expect(await read('background')).toEqual({ fileGroup: 'background', fileContent: '' });
    const jpeg = await image('jpeg', 60);
    await store({ fileGroup: 'background', fileContent: jpeg.toString('base64') });
    expect(Buffer.from((await read('background')).fileContent, 'base64').equals(jpeg)).toBe(true);
    const webp = await image('webp');
    await store({ fileGroup: 'background', fileContent: webp.toString('base64') });
    expect(Buffer.from((await read('background')).fileContent, 'base64').equals(webp)).toBe(true);
    expect((await remove('background')).status).toBe(200);
    expect(await read('background')).toEqual({ fileGroup: 'background', fileContent: '' });
  });

  it('takes an SVG logo (the built-in one sent back)', async () => {
    await store({ fileGroup: 'logo', fileContent: DEFAULT_LOGO.toString('base64') });
    expect(readFileSync(path.join(groupDir('logo'), 'content')).equals(DEFAULT_LOGO)).toBe(true);
    await remove('logo');
  });

  it('refuses content that is not an image for logo and background, keeping the stored file', async () => {
    const png = await image('png');
    await store({ fileGroup: 'logo', fileContent: png.toString('base64') });
    const pdf = await numberedPdf(1);
    for (const content of [Buffer.from('just some text'), pdf, Buffer.from('<html><body>x</body></html>'), Buffer.alloc(0)]) {
      const body = await expectError(await post({ fileGroup: 'logo', fileContent: content.toString('base64') }), 400, -127);
      expect(body.errorMessage).toMatch(/image/);
    }
    await expectError(await post({ fileGroup: 'background', fileContent: pdf.toString('base64') }), 400, -127);
    expect((await read('logo')).fileContent).toBe(png.toString('base64'));
    expect(readdirSync(groupDir('logo'))).toEqual(['content']);
    expect(readdirSync(groupDir('background'))).toEqual([]);
    await remove('logo');
  });

  it('stores a theme as a JSON object or CSS, and refuses other content', async () => {
    const json = Buffer.from(JSON.stringify({ palette: { primary: '#2d5b8a' } }));
    await store({ fileGroup: 'theme', fileContent: json.toString('base64') });
    expect(Buffer.from((await read('theme')).fileContent, 'base64').toString()).toBe(json.toString());
    const css = Buffer.from('/* Quire */\n:root { --primary: #2d5b8a; }\nbody { margin: 0 }\n');
    await store({ fileGroup: 'theme', fileContent: css.toString('base64') });
    expect(readFileSync(path.join(groupDir('theme'), 'content'), 'utf8')).toBe(css.toString());

    const refused = [await image('png'), Buffer.from('[1, 2, 3]'), Buffer.from('<style>body{}</style>'), Buffer.from('no rules at all'), Buffer.from([0xff, 0xfe, 0x00, 0x41])];
    for (const content of refused) {
      await expectError(await post({ fileGroup: 'theme', fileContent: content.toString('base64') }), 400, -127);
    }
    expect(readFileSync(path.join(groupDir('theme'), 'content'), 'utf8')).toBe(css.toString());
    expect((await remove('theme')).status).toBe(200);
    expect(await read('theme')).toEqual({ fileGroup: 'theme', fileContent: '' });
  });

  it('stores, reads and deletes generic files by name', async () => {
    const notes = Buffer.from('any bytes \u0000\u0001 at all');
    const stored = await store({ fileGroup: 'generic', fileName: 'notes-1.txt', fileContent: notes.toString('base64') });
    expect(stored).toEqual({ fileGroup: 'generic', fileName: 'notes-1.txt', fileContent: notes.toString('base64') });
    expect(await read('generic', '?name=notes-1.txt')).toEqual(stored);
    expect(readFileSync(path.join(groupDir('generic'), 'notes-1.txt')).equals(notes)).toBe(true);

    // Without a name a generic file is the reference's unknown.txt.
    const unnamed = await store({ fileGroup: 'generic', fileContent: Buffer.from('x').toString('base64') });
    expect(unnamed.fileName).toBe('unknown.txt');
    expect(existsSync(path.join(groupDir('generic'), 'unknown.txt'))).toBe(true);

    expect((await remove('generic', '?name=notes-1.txt')).status).toBe(200);
    expect(existsSync(path.join(groupDir('generic'), 'notes-1.txt'))).toBe(false);
    await expectError(await get('generic', '?name=notes-1.txt'), 404, -125);
    await expectError(await remove('generic', '?name=notes-1.txt'), 404, -125);
    await expectError(await get('generic'), 400, -128);
    await remove('generic', '?name=unknown.txt');
  });

  it('never lets a generic name choose a path', async () => {
    const before = tree(path.join(server.dataDir, 'datastore'));
    const names = ['../evil.txt', '..', '.', '.hidden', 'a/b.txt', 'a\\b.txt', '/etc/passwd', '../../datastore/logo/content', 'C:\\evil', 'x'.repeat(129), 'name with blank'];
    for (const name of names) {
      const content = Buffer.from('evil').toString('base64');
      await expectError(await post({ fileGroup: 'generic', fileName: name, fileContent: content }), 400, -128);
      await expectError(await get('generic', `?name=${encodeURIComponent(name)}`), 400, -128);
      await expectError(await remove('generic', `?name=${encodeURIComponent(name)}`), 400, -128);
    }
    expect(tree(path.join(server.dataDir, 'datastore'))).toEqual(before);
    expect(tree(server.dataDir).filter((p) => /evil|passwd/.test(p))).toEqual([]);
  });

  it('refuses files above datastore.maxFileSize and content that is not Base64', async () => {
    const tooLarge = Buffer.alloc(MAX_FILE_SIZE + 1, 0x41);
    const body = await expectError(await post({ fileGroup: 'generic', fileName: 'large.bin', fileContent: tooLarge.toString('base64') }), 413, -126);
    expect(body.errorMessage).toContain(String(MAX_FILE_SIZE));
    // Exactly the limit is fine.
    await store({ fileGroup: 'generic', fileName: 'limit.bin', fileContent: Buffer.alloc(MAX_FILE_SIZE, 0x41).toString('base64') });
    await remove('generic', '?name=limit.bin');
    // Far beyond: refused by the body limit before it is read.
    const huge = 'A'.repeat(17 * 1024 * 1024);
    await expectError(await post({ fileGroup: 'generic', fileName: 'huge.bin', fileContent: huge }), 413, -82);
    await expectError(await post({ fileGroup: 'generic', fileName: 'x.bin', fileContent: 'not base64!' }), 400, -127);
    expect(readdirSync(groupDir('generic'))).toEqual([]);
  });

  it('refuses unknown groups and bodies without a group with -14', async () => {
    await expectError(await get('favicon'), 400, -14);
    await expectError(await remove('favicon'), 400, -14);
    await expectError(await post({ fileGroup: 'favicon', fileContent: '' }), 400, -14);
    await expectError(await post({ fileContent: '' }), 400, -14);
  });

  it('needs an administrator: 403 for other sessions, 401 without a token', async () => {
    const content = (await image('png')).toString('base64');
    for (const response of [await get('logo', '', user.token), await post({ fileGroup: 'logo', fileContent: content }, user.token), await remove('logo', '', user.token)]) {
      await expectError(response, 403, -67);
    }
    const anonymous = [
      await fetch(`${server.rest}/admin/datastore/logo`),
      await fetch(`${server.rest}/admin/datastore/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ fileGroup: 'logo', fileContent: content }) }),
      await fetch(`${server.rest}/admin/datastore/logo`, { method: 'DELETE' }),
    ];
    for (const response of anonymous) await expectError(response, 401, -61);
    expect(readdirSync(groupDir('logo'))).toEqual([]);
  });
});
