import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostileDocuments, hostileLegacyDocuments, hostileRtfPicture, type HostileDocument, type HostileTargets } from '../engines/libreoffice/hostile-office.js';
import { pdfContent, SECRET_CSV, SECRET_IMAGE_SIZE, SECRET_TEXT, secretTargets, startListener, writeSecrets, type Listener } from '../engines/libreoffice/leak-check.js';
import { convertOk, downloadToFile } from '../helpers/converter.js';
import { uploadFile, type TestSession } from '../helpers/documents.js';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';

/**
 * Issue 11, defect 3: `POST converter/{id}` of an Office document that links an image on a loopback
 * address made LibreOffice fetch it, although network.allowInternal is false, and linked files on the
 * server's disk ended up in the PDF. Office input may fetch nothing at all, whatever the address
 * policy says (the kernel walls and LibreOffice's own settings are tested one by one in
 * test/engines/libreoffice/office-network.test.ts).
 */

let listener: Listener;
let targets: HostileTargets;
let scratch: string;
let documents: HostileDocument[];

beforeAll(async () => {
  listener = await startListener();
  targets = secretTargets(listener.base);
  scratch = mkdtempSync(path.join(os.tmpdir(), 'quire-office-network-http-'));
  listener.closed = true; // the writer of the legacy files follows the links: not counted
  const legacy = await hostileLegacyDocuments(targets, scratch);
  listener.closed = false;
  await writeSecrets(targets);
  documents = [...(await hostileDocuments(targets)), ...legacy, hostileRtfPicture(targets)];
}, 120_000);

afterAll(async () => {
  await listener?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  if (targets) rmSync(path.dirname(targets.secretPng), { recursive: true, force: true });
});

async function expectSafeConversion(server: TestServer, session: TestSession, document: HostileDocument): Promise<void> {
  const uploaded = await uploadFile(server.rest, session.token, document.content, document.name);
  listener.hits.length = 0;
  await convertOk(server.rest, session.token, uploaded.documentId);
  expect(listener.hits, `${document.name} made LibreOffice reach the listener`).toEqual([]);
  const { text, images } = pdfContent(await downloadToFile(server.rest, session.token, uploaded.documentId));
  expect(text).toContain(document.marker);
  expect(images, `${document.name} embeds an image file of the server`).not.toContain(SECRET_IMAGE_SIZE);
  expect(text).not.toContain(SECRET_TEXT);
  expect(text).not.toContain(SECRET_CSV);
}

describe('converter: Office documents fetch nothing and embed no server files (default configuration)', () => {
  const { server, session } = useTestServer({
    engines: true,
    env: { QUIRE_ENGINES__CHROMIUM__ENABLED: 'false', QUIRE_ENGINES__LIBREOFFICE__WORKERS: '1' },
  });

  const names = [
    'hostile.docx',
    'hostile.xlsx',
    'hostile.pptx',
    'hostile.odt',
    'hostile.ods',
    'hostile.odp',
    'hostile.rtf',
    'hostile-picture.rtf',
    'hostile-legacy.doc',
    'hostile-legacy.xls',
    'hostile-legacy.ppt',
  ];
  for (const name of names) {
    it(`${name}: linked images, OLE objects, sections, external data and fields reach neither the loopback listener nor the disk`, async () => {
      await expectSafeConversion(server, session, documents.find((d) => d.name === name)!);
    });
  }
});

describe('converter: network.allowInternal does not open the network to Office documents', () => {
  const { server, session } = useTestServer({
    engines: true,
    env: { QUIRE_ENGINES__CHROMIUM__ENABLED: 'false', QUIRE_ENGINES__LIBREOFFICE__WORKERS: '1', QUIRE_NETWORK__ALLOW_INTERNAL: 'true' },
  });

  it('hostile.docx with allowInternal true: still nothing fetched', async () => {
    await expectSafeConversion(server, session, documents.find((d) => d.name === 'hostile.docx')!);
  });
});
