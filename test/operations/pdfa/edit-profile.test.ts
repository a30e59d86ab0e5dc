import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { postWebService } from '../../helpers/converter.js';
import { sha256 } from '../../helpers/documents.js';
import { useTestServer } from '../../helpers/fixture.js';
import { runToolbox } from '../../helpers/toolbox.js';
import { validatePdfa } from '../../../src/engines/pdfa-validator/validate.js';
import { textImagePdf } from './inputs.js';

/**
 * `settings.pdfa.pdfaEditProfile` (reference §10.1) on a real server: a toolbox edit that breaks a
 * document's PDF/A-1b conformance (an attachment: part 1 forbids embedded files) drops the claim by
 * default, is refused with generalEditRestrictions, and is stored as it is with noEditRestrictions.
 * The claim is read with poppler (pdfinfo -meta), the attachment with pdfdetach.
 */

const { server, session, upload, download } = useTestServer();

const attach = [{ attachment: { add: { file: [{ fileName: 'note.txt', data: { value: Buffer.from('a note').toString('base64') } }] } } }];

async function pdfaDocument(level: string): Promise<string> {
  const uploaded = await upload(await textImagePdf({ pages: 1, image: false }), 'claimed.pdf');
  const outcome = await postWebService(`${server.rest}/pdfa/${uploaded.documentId}`, session.token, { pdfa: { convert: { level } } });
  expect(outcome.status, JSON.stringify(outcome.error)).toBe(303);
  return uploaded.documentId;
}

const xmp = (file: string) => execFileSync('pdfinfo', ['-meta', file], { encoding: 'utf8' });
const claims = (file: string) => /pdfaid:part/.test(xmp(file));
const pdfaid = (file: string) => {
  const meta = xmp(file);
  return `${/pdfaid:part(?:>|=")(\d)/.exec(meta)?.[1] ?? ''}${/pdfaid:conformance(?:>|=")([ABU])/.exec(meta)?.[1] ?? ''}`;
};
/** Every `endstream` keyword of the raw file preceded by an EOL (PDF/A rule 6.1.7.1-2). */
const endstreamsWithoutEol = (file: string) =>
  readFileSync(file)
    .toString('latin1')
    .match(/[^\r\n]endstream/g)?.length ?? 0;
const attachments = (file: string) => execFileSync('pdfdetach', ['-list', file], { encoding: 'utf8' });

describe('settings.pdfa.pdfaEditProfile', () => {
  it('default (removePdfaMetadata): an edit that breaks PDF/A-1b is stored without the claim', async () => {
    const id = await pdfaDocument('1b');
    expect(claims(await download(id))).toBe(true);
    const outcome = await runToolbox(server.rest, session.token, id, attach);
    expect(outcome.status, JSON.stringify(outcome.error)).toBe(303);
    const file = await download(id);
    expect(attachments(file)).toMatch(/note\.txt/);
    expect(claims(file)).toBe(false);
    expect(xmp(file)).toMatch(/dc:title|dc:format/); // the rest of the packet stays
  });

  it('default: a rotation keeps a PDF/A-2b document PDF/A-2b (qpdf writes no EOL before endstream by itself)', async () => {
    const id = await pdfaDocument('2b');
    const outcome = await runToolbox(server.rest, session.token, id, [{ rotate: { pages: '1', degrees: 90 } }]);
    expect(outcome.status, JSON.stringify(outcome.error)).toBe(303);
    const file = await download(id);
    expect(execFileSync('pdfinfo', [file], { encoding: 'utf8' })).toMatch(/Page rot:\s+90/);
    expect(endstreamsWithoutEol(file)).toBe(0);
    expect(pdfaid(file)).toBe('2B');
    const report = await validatePdfa(file, '2b');
    expect(report.verdict, JSON.stringify(report.counts)).toBe('compliant');
  });

  it('generalEditRestrictions: a rotation of a PDF/A-2b corpus pass file is not refused', async () => {
    const corpus = '/work/shared/pdfa/corpus/PDF_A-2b/6.2 Graphics/6.2.2 Content streams/veraPDF test suite 6-2-2-t01-pass-a.pdf';
    const { documentId: id } = await upload(readFileSync(corpus), 'pass.pdf');
    const outcome = await runToolbox(server.rest, session.token, id, [{ rotate: { pages: '1', degrees: 180 } }], { settings: { pdfa: { pdfaEditProfile: 'generalEditRestrictions' } } });
    expect(outcome.status, JSON.stringify(outcome.error)).toBe(303);
    const file = await download(id);
    expect(endstreamsWithoutEol(file)).toBe(0);
    expect(pdfaid(file)).toBe('2B');
  });

  it('generalEditRestrictions: the edit is refused with -173 naming the rule; the document is unchanged', async () => {
    const id = await pdfaDocument('1b');
    const before = sha256(readFileSync(await download(id)));
    const outcome = await runToolbox(server.rest, session.token, id, attach, { settings: { pdfa: { pdfaEditProfile: 'generalEditRestrictions' } } });
    expect(outcome).toMatchObject({ status: 400, error: { errorCode: -173 } });
    expect(outcome.error!.errorMessage).toMatch(/PDF\/A-1b.*6\.\d/);
    expect(sha256(readFileSync(await download(id)))).toBe(before);
  });

  it('noEditRestrictions: the edit is stored as it is, claim and all', async () => {
    const id = await pdfaDocument('1b');
    const outcome = await runToolbox(server.rest, session.token, id, attach, { settings: { pdfa: { pdfaEditProfile: 'noEditRestrictions' } } });
    expect(outcome.status, JSON.stringify(outcome.error)).toBe(303);
    const file = await download(id);
    expect(attachments(file)).toMatch(/note\.txt/);
    expect(claims(file)).toBe(true);
  });

  it('an unknown profile is refused with -14 naming the field, before any work', async () => {
    const id = await pdfaDocument('2b');
    const before = sha256(readFileSync(await download(id)));
    const outcome = await runToolbox(server.rest, session.token, id, attach, { settings: { pdfa: { pdfaEditProfile: 'sometimes' } } });
    expect(outcome).toMatchObject({ status: 400, error: { errorCode: -14 } });
    expect(outcome.error!.errorMessage).toMatch(/settings\.pdfa\.pdfaEditProfile/);
    expect(sha256(readFileSync(await download(id)))).toBe(before);
  });
});
