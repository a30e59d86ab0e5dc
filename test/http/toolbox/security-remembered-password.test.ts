import { execFileSync, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { bearer } from '../../helpers/client.js';
import { pdfFacts } from '../../helpers/converter.js';
import { useTestServer } from '../../helpers/fixture.js';
import { numberedPdf, runToolbox, toolboxNew, toolboxOk } from '../../helpers/toolbox.js';

/**
 * Issue 13, item 3: the protection a session sets with toolbox `security.encrypt` is remembered for
 * that session, as `PUT documents/{id}/security/password` remembers supplied credentials. Every file
 * fact is checked with qpdf and poppler, never with the server.
 */

/** qpdf opens the file with `password` (empty: without one). */
function opens(file: string, password = ''): boolean {
  return spawnSync('qpdf', [`--password=${password}`, '--show-npages', file]).status === 0;
}

/** What qpdf says the supplied password is: "user" or "owner". */
function suppliedAs(file: string, password: string): string {
  const text = execFileSync('qpdf', [`--password=${password}`, '--show-encryption', file], { encoding: 'utf8' });
  return /^Supplied password is (\w+) password$/m.exec(text)?.[1] ?? '';
}

/** qpdf --is-encrypted exits 0 for an encrypted file, 2 for a plain one. */
const encrypted = (file: string) => spawnSync('qpdf', ['--is-encrypted', file]).status === 0;

/** The first page's rotation as pdfinfo reports it. */
function rotation(file: string, password: string): number {
  const text = execFileSync('pdfinfo', ['-upw', password, file], { encoding: 'utf8' });
  return Number(/^Page rot:\s+(\d+)/m.exec(text)?.[1] ?? NaN);
}

const ENCRYPT = (open: string, permission: string) => [{ security: { encrypt: { password: { open, permission } } } }];
const ROTATE = [{ rotate: { pages: '1', degrees: 90 } }];

describe('toolbox security: the password the session set is remembered', () => {
  const { server, session, upload, download } = useTestServer();

  const documentInfo = async (id: string) => (await (await fetch(`${server.rest}/documents/${id}/info`, { headers: bearer(session.token) })).json()) as Record<string, any>;

  it('answers the info of the freshly encrypted document with error 0 and its metadata (the request of the official client)', async () => {
    const uploaded = await upload(await numberedPdf(3));
    const outcome = await runToolbox(server.rest, session.token, uploaded.documentId, ENCRYPT('open', 'permission'));
    expect(outcome.status).toBe(303);
    const info = await documentInfo(uploaded.documentId);
    expect(info.error).toMatchObject({ errorCode: 0 });
    expect(info.password).toMatchObject({ isOpenSet: true, isPermissionSet: true, isCertificateSet: false });
    expect(info.metadata).toMatchObject({ metadataType: 'pdf', information: { pages: 3, encrypted: true } });

    // The file really is protected with exactly these passwords (qpdf, poppler).
    const file = await download(uploaded.documentId);
    expect(opens(file)).toBe(false);
    expect(suppliedAs(file, 'open')).toBe('user');
    expect(suppliedAs(file, 'permission')).toBe('owner');
    expect(pdfFacts(file, 'open').pages).toBe(3);
  });

  it('lets later operations run without the password, keeping the protection', async () => {
    const uploaded = await upload(await numberedPdf(2));
    await toolboxOk(server.rest, session.token, uploaded.documentId, ENCRYPT('open', 'permission'));
    const rotated = await runToolbox(server.rest, session.token, uploaded.documentId, ROTATE);
    expect(rotated.status, JSON.stringify(rotated.error)).toBe(303);
    const file = await download(uploaded.documentId);
    expect(opens(file)).toBe(false);
    expect(suppliedAs(file, 'open')).toBe('user');
    expect(suppliedAs(file, 'permission')).toBe('owner');
    expect(rotation(file, 'open')).toBe(90);
    expect((await documentInfo(uploaded.documentId)).error).toMatchObject({ errorCode: 0 });
  });

  it('remembers an open password alone, and a permission password alone (later operations need no password)', async () => {
    const openOnly = await upload(await numberedPdf(1));
    expect((await toolboxOk(server.rest, session.token, openOnly.documentId, ENCRYPT('nur-offen', ''))).error).toMatchObject({ errorCode: 0 });
    expect((await runToolbox(server.rest, session.token, openOnly.documentId, ROTATE)).status).toBe(303);
    const openFile = await download(openOnly.documentId);
    expect(suppliedAs(openFile, 'nur-offen')).toBe('user');
    expect(rotation(openFile, 'nur-offen')).toBe(90);

    const permissionOnly = await upload(await numberedPdf(1));
    await toolboxOk(server.rest, session.token, permissionOnly.documentId, ENCRYPT('', 'nur-rechte'));
    expect((await runToolbox(server.rest, session.token, permissionOnly.documentId, ROTATE)).status).toBe(303);
    const permissionFile = await download(permissionOnly.documentId);
    expect(opens(permissionFile)).toBe(true);
    expect(suppliedAs(permissionFile, 'nur-rechte')).toBe('owner');
    expect(rotation(permissionFile, '')).toBe(90);
  });

  it('decrypts with the remembered password, and forgets it afterwards', async () => {
    const uploaded = await upload(await numberedPdf(1));
    await toolboxOk(server.rest, session.token, uploaded.documentId, ENCRYPT('open', 'permission'));
    const decrypted = await toolboxOk(server.rest, session.token, uploaded.documentId, [{ security: { decrypt: {} } }]);
    expect(decrypted.error).toMatchObject({ errorCode: 0 });
    const file = await download(uploaded.documentId);
    expect(encrypted(file)).toBe(false);
    expect(pdfFacts(file).text).toContain('PAGE-1');
    expect((await documentInfo(uploaded.documentId)).password).toMatchObject({ isOpenSet: false, isPermissionSet: false });
  });

  it('a second encrypt replaces what is remembered: the new passwords open, the old ones do not', async () => {
    const uploaded = await upload(await numberedPdf(1));
    await toolboxOk(server.rest, session.token, uploaded.documentId, ENCRYPT('alt-offen', 'alt-rechte'));
    const again = await toolboxOk(server.rest, session.token, uploaded.documentId, ENCRYPT('neu-offen', 'neu-rechte'));
    expect(again.error).toMatchObject({ errorCode: 0 });
    expect((await runToolbox(server.rest, session.token, uploaded.documentId, ROTATE)).status).toBe(303);
    const file = await download(uploaded.documentId);
    expect(opens(file, 'alt-offen')).toBe(false);
    expect(opens(file, 'alt-rechte')).toBe(false);
    expect(suppliedAs(file, 'neu-offen')).toBe('user');
    expect(suppliedAs(file, 'neu-rechte')).toBe('owner');
    expect(rotation(file, 'neu-offen')).toBe(90);
  });

  it('keeps what each history state needs: an older protected state made active again opens with its own password', async () => {
    const uploaded = await upload(await numberedPdf(1), 'history.pdf', '?history=true');
    expect(uploaded.historyId).toBe(1);
    await toolboxOk(server.rest, session.token, uploaded.documentId, ENCRYPT('erste', 'erste-rechte')); // state 2
    const third = await toolboxOk(server.rest, session.token, uploaded.documentId, ENCRYPT('zweite', 'zweite-rechte')); // state 3
    expect(third).toMatchObject({ historyId: 3, error: { errorCode: 0 } });

    const revert = await fetch(`${server.rest}/documents/${uploaded.documentId}/history/2`, {
      method: 'PUT',
      headers: { ...bearer(session.token), 'content-type': 'application/json' },
      body: JSON.stringify({ active: true }),
    });
    expect(revert.status).toBe(200);
    const second = await documentInfo(uploaded.documentId);
    expect(second).toMatchObject({ historyId: 2, error: { errorCode: 0 }, password: { isOpenSet: true } });
    expect(second.metadata).toMatchObject({ metadataType: 'pdf' });

    // An operation on state 2 needs no password and keeps state 2's protection in state 4.
    expect((await runToolbox(server.rest, session.token, uploaded.documentId, ROTATE)).status).toBe(303);
    const fourth = await documentInfo(uploaded.documentId);
    expect(fourth).toMatchObject({ historyId: 4, error: { errorCode: 0 } });
    const file = await download(uploaded.documentId);
    expect(opens(file, 'zweite')).toBe(false);
    expect(suppliedAs(file, 'erste')).toBe('user');
    expect(rotation(file, 'erste')).toBe(90);

    // State 3 still opens with its own.
    await fetch(`${server.rest}/documents/${uploaded.documentId}/history/3`, {
      method: 'PUT',
      headers: { ...bearer(session.token), 'content-type': 'application/json' },
      body: JSON.stringify({ active: true }),
    });
    expect(await documentInfo(uploaded.documentId)).toMatchObject({ historyId: 3, error: { errorCode: 0 } });
  });

  it('remembers the password of a document toolbox/new made encrypted', async () => {
    const source = (await numberedPdf(2)).toString('base64');
    const created = await toolboxNew(
      server.rest,
      session.token,
      [
        { merge: { mode: 'atTheEnd', page: 1, outlineName: '', removeStaticXFA: false, resetMetadata: false, sourceIsZip: false, data: { format: 'pdf', source: 'value', value: source } } },
        ...ENCRYPT('neu', 'neu-rechte'),
      ],
      '?name=made.pdf',
    );
    expect(created.error).toMatchObject({ errorCode: 0 });
    const file = await download(created.documentId);
    expect(suppliedAs(file, 'neu')).toBe('user');
    expect(pdfFacts(file, 'neu').pages).toBe(2);
  });

  it('remembers nothing for an encrypt without passwords (the old password is not kept)', async () => {
    const uploaded = await upload(await numberedPdf(1));
    await toolboxOk(server.rest, session.token, uploaded.documentId, ENCRYPT('open', 'permission'));
    // No passwords: opens without one, the permission password is random; the old one is not kept.
    const unprotected = await toolboxOk(server.rest, session.token, uploaded.documentId, ENCRYPT('', ''));
    expect(unprotected.error).toMatchObject({ errorCode: 0 });
    const file = await download(uploaded.documentId);
    expect(opens(file)).toBe(true);
    expect(opens(file, 'permission')).toBe(false);
    // The toolbox refuses a protected document whose permission password nobody knows (-5009), as before.
    expect((await runToolbox(server.rest, session.token, uploaded.documentId, ROTATE)).error).toMatchObject({ errorCode: -5009 });
  });
});
