/**
 * Issue 20: nodes on one shared data dir keep their engines' work apart. Each LibreOffice start empties
 * its job folder and the start-up sweep removes profiles no process of its machine uses; when both
 * nodes worked in `<dataDir>/engines`, the second node's start took the first node's files away and
 * its next conversion failed with -102 ("type detection failed").
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertOk, downloadToFile, pageText } from '../helpers/converter.js';
import { openSession, uploadFile } from '../helpers/documents.js';
import { startTwoApps, type TwoApps } from './helpers/two-apps.js';

const DOCX = readFileSync(path.resolve(import.meta.dirname, '../fixtures/office/sample.docx'));

describe('cluster: LibreOffice on two nodes of one data dir', () => {
  let apps: TwoApps;
  beforeAll(async () => {
    apps = await startTwoApps({
      keyPrefix: 'quire-engines:',
      engines: true,
      env: { QUIRE_ENGINES__CHROMIUM__ENABLED: 'false', QUIRE_ENGINES__LIBREOFFICE__WORKERS: '1' },
    });
  }, 120_000);
  afterAll(async () => {
    await apps?.stop();
  });

  it('converts on the node that started first, after the second started, and on the second', async () => {
    const session = await openSession(apps.a.rest);
    for (const node of [apps.a, apps.b, apps.a]) {
      const uploaded = await uploadFile(node.rest, session.token, DOCX, 'sample.docx');
      await convertOk(node.rest, session.token, uploaded.documentId);
      const pdf = await downloadToFile(node.rest, session.token, uploaded.documentId);
      expect(pageText(pdf, 1)).toContain('QUIRE-MARKER-docx');
    }
  }, 120_000);
});
