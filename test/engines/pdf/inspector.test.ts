import { createPrivateKey } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PDFDocument, PDFName } from '@cantoo/pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PdfEngineError, createPdfInspector } from '../../../src/engines/pdf/index.js';
import type { PdfEngineErrorKind } from '../../../src/engines/pdf/index.js';
import { run } from '../../../src/engines/process/run.js';
import { COMMITTED, makeDamaged, makeManyPagesPdf, makePlainPdf, makeRichPdf, makeTempDir, pdfinfo, qpdf } from './fixtures.js';
import { rejectionOf } from '../../helpers/rejection.js';

let dir: string;
const file = (name: string): string => path.join(dir, name);
const committed = (name: string): string => path.join(COMMITTED, name);
const inspector = createPdfInspector();

async function failure(promise: Promise<unknown>): Promise<PdfEngineErrorKind> {
  return (await rejectionOf(promise, PdfEngineError)).kind;
}

beforeAll(async () => {
  dir = makeTempDir();
  await makeRichPdf(file('rich.pdf'));
  await makePlainPdf(file('plain.pdf'));
  await makeManyPagesPdf(file('pages1000.pdf'), 1000);
  await qpdf('--encrypt', 'user pw', 'owner pw', '256', '--', file('rich.pdf'), file('user-aes256.pdf'));
  await qpdf('--encrypt', '', 'owner', '256', '--print=none', '--modify=none', '--', file('rich.pdf'), file('owner-only.pdf'));
  await qpdf('--allow-weak-crypto', '--encrypt', 'user', 'owner', '128', '--use-aes=n', '--', file('plain.pdf'), file('user-rc4-128.pdf'));
  await qpdf('--allow-weak-crypto', '--encrypt', 'user', 'owner', '40', '--', file('plain.pdf'), file('user-rc4-40.pdf'));
  await qpdf('--encrypt', 'user', 'owner', '128', '--use-aes=y', '--', file('plain.pdf'), file('user-aes128.pdf'));
  await qpdf('--encrypt', '', '', '256', '--', file('plain.pdf'), file('no-passwords.pdf'));
  await qpdf('--encrypt', 'pässwörd', 'owner', '256', '--', file('plain.pdf'), file('umlaut.pdf'));
  await makeDamaged(file('rich.pdf'), file('damaged.pdf'));
  await makeDamaged(file('rich.pdf'), file('damaged-encrypted.pdf'), '--encrypt', 'user pw', 'owner pw', '256', '--');
  fs.writeFileSync(file('not-a-pdf.txt'), 'Just some text, no PDF here.\n'.repeat(100));
  fs.writeFileSync(file('empty.pdf'), '');
  fs.writeFileSync(file('truncated.pdf'), fs.readFileSync(file('rich.pdf')).subarray(0, 300));
}, 120_000);

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('what qpdf 11.3 itself does (the reasons for the design)', () => {
  it('--requires-password exits 2 for a certificate-encrypted file, the same code as "not encrypted"', async () => {
    const cert = await run('qpdf', ['--requires-password', committed('cert-encrypted.pdf')]);
    const plain = await run('qpdf', ['--requires-password', file('plain.pdf')]);
    expect(cert.exitCode).toBe(2);
    expect(plain.exitCode).toBe(2);
    expect(cert.stderr).toMatch(/unsupported encryption filter/);
  });

  it('reads a password from stdin with --password-file=-', async () => {
    const result = await run('qpdf', ['--password-file=-', '--show-encryption', file('user-aes256.pdf')], { stdin: 'owner pw' });
    expect(result.stdout.toString()).toMatch(/Supplied password is owner password/);
  });
});

describe('security', () => {
  it('reports an unencrypted file as none', async () => {
    const info = await inspector.security(file('rich.pdf'));
    expect(info).toMatchObject({
      kind: 'none',
      encrypted: false,
      hasOpenPassword: false,
      hasPermissionPassword: false,
      hasCertificate: false,
      keyAlgorithm: 'none',
      keyLength: 0,
      recipients: [],
      repaired: false,
    });
  });

  it('reports an open password with AES-256', async () => {
    const info = await inspector.security(file('user-aes256.pdf'));
    expect(info).toMatchObject({ kind: 'openPassword', encrypted: true, hasOpenPassword: true, hasPermissionPassword: true, filter: 'Standard', revision: 6, keyAlgorithm: 'aes', keyLength: 256 });
  });

  it('reports RC4 40/128 and AES-128', async () => {
    expect(await inspector.security(file('user-rc4-128.pdf'))).toMatchObject({ kind: 'openPassword', keyAlgorithm: 'rc4', keyLength: 128, revision: 3 });
    expect(await inspector.security(file('user-rc4-40.pdf'))).toMatchObject({ kind: 'openPassword', keyAlgorithm: 'rc4', keyLength: 40, revision: 2 });
    expect(await inspector.security(file('user-aes128.pdf'))).toMatchObject({ kind: 'openPassword', keyAlgorithm: 'aes', keyLength: 128, revision: 4 });
  });

  it('reports an owner-only file as permissionOnly, with the permissions qpdf sees', async () => {
    const info = await inspector.security(file('owner-only.pdf'));
    expect(info).toMatchObject({ kind: 'permissionOnly', hasOpenPassword: false, hasPermissionPassword: true });
    expect(info.permissions).toEqual({
      canPrint: false,
      canPrintHighRes: false,
      canModify: false,
      canAssemble: false,
      canFillInForm: false,
      canModifyAnnotations: false,
      canExtractContent: true,
      canExtractForAccessibility: true,
    });
    // Independent reading: qpdf's own capabilities.
    const json = JSON.parse((await run('qpdf', ['--json=2', '--json-key=encrypt', file('owner-only.pdf')])).stdout.toString()) as {
      encrypt: { capabilities: Record<string, boolean> };
    };
    const caps = json.encrypt.capabilities;
    expect(info.permissions).toMatchObject({
      canPrint: caps.printlow,
      canPrintHighRes: caps.printhigh,
      canModify: caps.modifyother,
      canAssemble: caps.modifyassembly,
      canFillInForm: caps.modifyforms,
      canModifyAnnotations: caps.modifyannotations,
      canExtractContent: caps.extract,
      canExtractForAccessibility: caps.accessibility,
    });
  });

  it('tells an encrypted file without any password from an owner-only one', async () => {
    expect(await inspector.security(file('no-passwords.pdf'))).toMatchObject({ kind: 'permissionOnly', encrypted: true, hasOpenPassword: false, hasPermissionPassword: false });
  });

  it('detects certificate encryption (AES-256) and lists the recipient', async () => {
    const info = await inspector.security(committed('cert-encrypted.pdf'));
    expect(info).toMatchObject({
      kind: 'certificate',
      encrypted: true,
      hasCertificate: true,
      hasOpenPassword: false,
      filter: 'Adobe.PubSec',
      subFilter: 'adbe.pkcs7.s5',
      keyAlgorithm: 'aes',
      keyLength: 256,
    });
    expect(info.recipients).toEqual([{ issuer: 'CN=Quire recipient,O=Quire Tests,C=DE', serialNumber: '11950311482569858102', serialNumberHex: 'a5d808fa59d91c36' }]);
    // Independent: the certificate's own serial and issuer, as openssl prints them.
    const x509 = new (await import('node:crypto')).X509Certificate(fs.readFileSync(committed('recipient.cert.pem')));
    expect(BigInt(`0x${x509.serialNumber}`).toString()).toBe(info.recipients[0]!.serialNumber);
  });

  it('detects certificate encryption (RC4-128, /Recipients in the dictionary) with two recipients', async () => {
    const info = await inspector.security(committed('cert-encrypted-rc4.pdf'));
    expect(info).toMatchObject({ kind: 'certificate', subFilter: 'adbe.pkcs7.s4', keyAlgorithm: 'rc4', keyLength: 128 });
    expect(info.recipients.map((r) => r.issuer)).toEqual(['CN=Quire recipient,O=Quire Tests,C=DE', 'CN=Quire other,O=Quire Tests,C=DE']);
  });

  it('detects certificate encryption in a copy whose xref is broken (by scanning)', async () => {
    const bytes = fs.readFileSync(committed('cert-encrypted.pdf'));
    const at = bytes.lastIndexOf('startxref');
    fs.writeFileSync(file('cert-damaged.pdf'), Buffer.concat([bytes.subarray(0, at), Buffer.from('startxref\n99\n%%EOF\n')]));
    const info = await inspector.security(file('cert-damaged.pdf'));
    expect(info).toMatchObject({ kind: 'certificate', keyAlgorithm: 'aes', keyLength: 256 });
    expect(info.recipients).toHaveLength(1);
  });

  it('does not misreport a damaged but repairable file', async () => {
    // qpdf warns and reconstructs the xref (exit 3); that is not "encrypted".
    const raw = await run('qpdf', ['--check', file('damaged.pdf')]);
    expect(raw.stderr).toMatch(/reconstruct/);
    expect(await inspector.security(file('damaged.pdf'))).toMatchObject({ kind: 'none', encrypted: false, repaired: true });
    expect(await inspector.security(file('damaged-encrypted.pdf'))).toMatchObject({ kind: 'openPassword', keyAlgorithm: 'aes', keyLength: 256, repaired: true });
  });

  it('gives typed errors for non-PDFs and missing files', async () => {
    expect(await failure(inspector.security(file('not-a-pdf.txt')))).toBe('invalidPdf');
    expect(await failure(inspector.security(file('empty.pdf')))).toBe('invalidPdf');
    expect(await failure(inspector.security(file('truncated.pdf')))).toBe('invalidPdf');
    expect(await failure(inspector.security(file('does-not-exist.pdf')))).toBe('fileUnreadable');
    expect(await failure(inspector.security(dir))).toBe('fileUnreadable');
  });

  it('reports a missing qpdf binary as toolMissing', async () => {
    const broken = createPdfInspector({ qpdfPath: '/nonexistent/qpdf' });
    expect(await failure(broken.security(file('plain.pdf')))).toBe('toolMissing');
  });
});

describe('checkPassword', () => {
  it('tells owner, user and wrong passwords apart', async () => {
    expect(await inspector.checkPassword(file('user-aes256.pdf'), 'user pw')).toBe('user');
    expect(await inspector.checkPassword(file('user-aes256.pdf'), 'owner pw')).toBe('owner');
    expect(await inspector.checkPassword(file('user-aes256.pdf'), 'user')).toBe('wrong');
    expect(await inspector.checkPassword(file('user-aes256.pdf'), 'user pw ')).toBe('wrong'); // spaces count
    expect(await inspector.checkPassword(file('user-aes256.pdf'), '')).toBe('wrong');
    expect(await inspector.checkPassword(file('user-rc4-40.pdf'), 'owner')).toBe('owner');
    expect(await inspector.checkPassword(file('user-rc4-128.pdf'), 'user')).toBe('user');
    expect(await inspector.checkPassword(file('owner-only.pdf'), 'owner')).toBe('owner');
    expect(await inspector.checkPassword(file('owner-only.pdf'), 'nope')).toBe('wrong');
    expect(await inspector.checkPassword(file('umlaut.pdf'), 'pässwörd')).toBe('user');
    expect(await inspector.checkPassword(file('plain.pdf'), 'anything')).toBe('notEncrypted');
  });

  it('treats a password with a line break as wrong (it cannot be passed on one line)', async () => {
    expect(await inspector.checkPassword(file('user-aes256.pdf'), 'user pw\nmore')).toBe('wrong');
  });

  it('refuses certificate-encrypted files', async () => {
    expect(await failure(inspector.checkPassword(committed('cert-encrypted.pdf'), 'x'))).toBe('certificateRequired');
  });
});

describe('checkCertificate', () => {
  const pem = (name: string): string => fs.readFileSync(committed(name), 'utf8');

  it('opens the envelope with the recipient key pair', async () => {
    expect(await inspector.checkCertificate(committed('cert-encrypted.pdf'), pem('recipient.cert.pem'), pem('recipient.key.pem'))).toBe(true);
    expect(await inspector.checkCertificate(committed('cert-encrypted-rc4.pdf'), pem('recipient.cert.pem'), pem('recipient.key.pem'))).toBe(true);
  });

  it('refuses an unrelated key pair, and a recipient certificate with the wrong key', async () => {
    expect(await inspector.checkCertificate(committed('cert-encrypted.pdf'), pem('other.cert.pem'), pem('other.key.pem'))).toBe(false);
    expect(await inspector.checkCertificate(committed('cert-encrypted.pdf'), pem('recipient.cert.pem'), pem('other.key.pem'))).toBe(false);
    expect(await inspector.checkCertificate(committed('cert-encrypted-rc4.pdf'), pem('recipient.cert.pem'), pem('other.key.pem'))).toBe(false);
  });

  it('accepts the second recipient of a two-recipient file', async () => {
    expect(await inspector.checkCertificate(committed('cert-encrypted-rc4.pdf'), pem('other.cert.pem'), pem('other.key.pem'))).toBe(true);
  });

  it('takes an encrypted private key with its password', async () => {
    const encrypted = createPrivateKey(pem('recipient.key.pem')).export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'key secret' }).toString();
    expect(await inspector.checkCertificate(committed('cert-encrypted.pdf'), pem('recipient.cert.pem'), encrypted, 'key secret')).toBe(true);
    expect(await failure(inspector.checkCertificate(committed('cert-encrypted.pdf'), pem('recipient.cert.pem'), encrypted, 'wrong'))).toBe('keyMaterialInvalid');
  });

  it('rejects unreadable material and answers false for other files', async () => {
    expect(await failure(inspector.checkCertificate(committed('cert-encrypted.pdf'), 'not a certificate', pem('recipient.key.pem')))).toBe('keyMaterialInvalid');
    expect(await failure(inspector.checkCertificate(committed('cert-encrypted.pdf'), pem('recipient.cert.pem'), 'not a key'))).toBe('keyMaterialInvalid');
    expect(await inspector.checkCertificate(file('plain.pdf'), pem('recipient.cert.pem'), pem('recipient.key.pem'))).toBe(false);
    expect(await inspector.checkCertificate(file('user-aes256.pdf'), pem('recipient.cert.pem'), pem('recipient.key.pem'))).toBe(false);
  });
});

describe('metadata', () => {
  it('describes the rich fixture', async () => {
    const meta = await inspector.metadata(file('rich.pdf'));
    expect(meta.metadataType).toBe('pdf');
    const info = meta.information;
    expect(info).toMatchObject({
      pages: 3,
      encrypted: false,
      fileSize: fs.statSync(file('rich.pdf')).size,
      formType: 'acroForm',
      language: 'de-DE',
      attachments: 1,
      signatures: 0,
      portfolio: false,
      docMDP: 'none',
      version: '1.7',
      pdfa: { part: '2', conformance: 'B' },
      pageLayout: 'twoColumnLeft',
      initialView: 'outlines',
      initialPage: 2,
      magnification: 'zoom',
      magnificationZoom: 150,
    });
    expect(info.description).toEqual({
      title: 'Quire test',
      author: [{ name: 'Ada Lovelace' }],
      subject: 'Fixtures',
      keywords: [{ keyword: 'alpha beta' }],
      creator: 'quire-tests',
      producer: 'pdf-lib',
      application: 'Quire Fixture Writer',
      creationDate: '2024-01-02T03:04:05Z',
      modificationDate: '2024-02-03T04:05:06Z',
      custom: [{ key: 'Department', value: 'QA' }],
    });
    expect(info.viewerPreferences).toMatchObject({
      hideToolbar: true,
      displayDocTitle: true,
      textDirection: 'rightToLeft',
      duplex: 'duplexFlipLongEdge',
      numCopies: 2,
      printScaling: 'noPrintScaling',
      hideMenuBar: false,
      viewArea: 'cropBox',
    });

    const pages = meta.pages.page;
    expect(meta.pages.truncated).toBe(false);
    expect(pages.map((p) => [p.number, p.label, p.rotation, p.width, p.height])).toEqual([
      [1, 'i', 0, 595.28, 841.89],
      [2, 'ii', 90, 500, 700],
      [3, 'A-5', 270, 300, 400],
    ]);
    expect(pages[1]!.boxes).toEqual({
      mediaBox: { x: 0, y: 0, width: 612, height: 792 },
      cropBox: { x: 10, y: 20, width: 500, height: 700 },
      bleedBox: { x: 10, y: 20, width: 500, height: 700 },
      trimBox: { x: 15, y: 25, width: 490, height: 690 },
      artBox: { x: 10, y: 20, width: 500, height: 700 },
    });
    expect(pages[2]!.boxes.artBox).toEqual({ x: 5, y: 5, width: 290, height: 390 });

    expect(meta.security).toMatchObject({
      canPrint: true,
      canModify: true,
      password: { hasOpenPassword: false, hasPermissionPassword: false, hasAsymmetricEncryption: false, keyAlgorithm: 'none', keyLength: 0 },
    });

    const fields = meta.form.field;
    expect(meta.form.formType).toBe('acroForm');
    expect(fields.map((f) => [f.fullyQualifiedName, f.name, f.type, f.subType, f.content, f.readOnly, f.required, f.multiSelect])).toEqual([
      ['person.name', 'name', 'text', 'Tx', 'Grace <Hopper> & Co', false, true, false],
      ['agree', 'agree', 'checkBox', 'Btn', 'Yes', false, false, false],
      ['color', 'color', 'comboBox', 'Ch', 'green', true, false, false],
      ['fruits', 'fruits', 'listBox', 'Ch', 'apple, cherry', false, false, true],
    ]);
    expect(fields[2]!.value.map((v) => v.export)).toEqual(['red', 'green', 'blue']);
  });

  it('agrees with pdfinfo (poppler) on pages, sizes, boxes and rotation', async () => {
    const meta = await inspector.metadata(file('rich.pdf'));
    const text = await pdfinfo('-f', '1', '-l', '3', '-box', file('rich.pdf'));
    expect(Number(/^Pages:\s+(\d+)/m.exec(text)![1])).toBe(meta.information.pages);
    for (const page of meta.pages.page) {
      const size = new RegExp(`^Page\\s+${page.number} size:\\s+([\\d.]+) x ([\\d.]+) pts`, 'm').exec(text)!;
      expect([Number(size[1]), Number(size[2])]).toEqual([page.width, page.height]);
      expect(Number(new RegExp(`^Page\\s+${page.number} rot:\\s+(\\d+)`, 'm').exec(text)![1])).toBe(page.rotation);
      for (const [name, key] of [
        ['MediaBox', 'mediaBox'],
        ['CropBox', 'cropBox'],
        ['BleedBox', 'bleedBox'],
        ['TrimBox', 'trimBox'],
        ['ArtBox', 'artBox'],
      ] as const) {
        const box = new RegExp(`^Page\\s+${page.number} ${name}:\\s+([\\d.-]+)\\s+([\\d.-]+)\\s+([\\d.-]+)\\s+([\\d.-]+)`, 'm').exec(text)!;
        const [x1, y1, x2, y2] = box.slice(1).map(Number) as [number, number, number, number];
        const ours = page.boxes[key];
        expect([ours.x, ours.y, ours.x + ours.width, ours.y + ours.height].map((v) => Math.round(v * 100) / 100)).toEqual([x1, y1, x2, y2]);
      }
    }
    expect(/^Title:\s+(.*)$/m.exec(text)![1]).toBe(meta.information.description.title);
    expect(/^PDF version:\s+(.*)$/m.exec(text)![1]).toBe(meta.information.version);
  });

  it('needs the password of a password-protected file', async () => {
    expect(await failure(inspector.metadata(file('user-aes256.pdf')))).toBe('passwordRequired');
    expect(await failure(inspector.metadata(file('user-aes256.pdf'), { password: 'nope' }))).toBe('passwordWrong');
    for (const password of ['user pw', 'owner pw']) {
      const meta = await inspector.metadata(file('user-aes256.pdf'), { password });
      expect(meta.information).toMatchObject({ encrypted: true, pages: 3, pdfa: { part: '2', conformance: 'B' } });
      expect(meta.information.description.title).toBe('Quire test'); // strings decrypted
      expect(meta.form.field.map((f) => f.content)).toContain('Grace <Hopper> & Co');
      expect(meta.security.password).toEqual({ hasOpenPassword: true, hasPermissionPassword: true, hasAsymmetricEncryption: false, keyAlgorithm: 'aes', keyLength: 256 });
    }
  });

  it('opens an owner-only file without a password and reports its restrictions', async () => {
    const meta = await inspector.metadata(file('owner-only.pdf'));
    expect(meta.information.encrypted).toBe(true);
    expect(meta.security).toMatchObject({ canPrint: false, canModify: false, canExtractContent: true, password: { hasOpenPassword: false, hasPermissionPassword: true } });
    // A wrong password does not spoil it: the document opens anyway.
    expect((await inspector.metadata(file('owner-only.pdf'), { password: 'wrong' })).information.pages).toBe(3);
  });

  it('refuses certificate-encrypted files and non-PDFs with typed errors', async () => {
    expect(await failure(inspector.metadata(committed('cert-encrypted.pdf')))).toBe('certificateRequired');
    expect(await failure(inspector.metadata(file('not-a-pdf.txt')))).toBe('invalidPdf');
    expect(await failure(inspector.metadata(file('truncated.pdf')))).toBe('invalidPdf');
  });

  it('reads a damaged but repairable file', async () => {
    const meta = await inspector.metadata(file('damaged.pdf'));
    expect(meta.information.pages).toBe(3);
    expect(meta.pages.page.map((p) => p.label)).toEqual(['i', 'ii', 'A-5']);
    const encrypted = await inspector.metadata(file('damaged-encrypted.pdf'), { password: 'user pw' });
    expect(encrypted.information.description.title).toBe('Quire test');
  });

  it('lists 1,000 pages quickly, in agreement with qpdf --show-npages and pdfinfo', async () => {
    const started = performance.now();
    const meta = await inspector.metadata(file('pages1000.pdf'));
    const ms = performance.now() - started;
    console.log(`metadata of 1,000 pages: ${ms.toFixed(0)} ms`);
    expect(ms).toBeLessThan(5000);
    const npages = Number((await run('qpdf', ['--show-npages', file('pages1000.pdf')])).stdout.toString().trim());
    expect(meta.information.pages).toBe(npages);
    expect(meta.pages.page).toHaveLength(1000);
    expect(meta.pages.page[999]).toMatchObject({ number: 1000, label: '1000', width: 792, height: 612 });
    expect(meta.pages.page[0]).toMatchObject({ number: 1, label: '1', width: 595.28, height: 841.89 });
    const text = await pdfinfo('-f', '999', '-l', '1000', file('pages1000.pdf'));
    expect(/^Page\s+1000 size:\s+792 x 612/m.test(text)).toBe(true);
  });

  it('cuts the page list at maxPages and says so, walking the page tree itself', async () => {
    const limited = createPdfInspector({ maxPages: 10 });
    const meta = await limited.metadata(file('pages1000.pdf'));
    expect(meta.information.pages).toBe(1000);
    expect(meta.pages.truncated).toBe(true);
    expect(meta.pages.page).toHaveLength(10);
    const full = await inspector.metadata(file('pages1000.pdf'));
    expect(meta.pages.page).toEqual(full.pages.page.slice(0, 10));
  });

  it('gives the same answer when objects are fetched in batches instead of dumped at once', async () => {
    const batched = createPdfInspector({ maxDumpObjects: 0 });
    for (const name of ['rich.pdf', 'damaged.pdf', 'owner-only.pdf']) {
      expect(await batched.metadata(file(name))).toEqual(await inspector.metadata(file(name)));
    }
    expect(await batched.metadata(file('user-aes256.pdf'), { password: 'user pw' })).toEqual(await inspector.metadata(file('user-aes256.pdf'), { password: 'user pw' }));
    const walked = await createPdfInspector({ maxDumpObjects: 0, maxPages: 25 }).metadata(file('pages1000.pdf'));
    expect(walked.pages.page).toEqual((await inspector.metadata(file('pages1000.pdf'))).pages.page.slice(0, 25));
  });

  it('times out with a typed error', async () => {
    const hasty = createPdfInspector({ timeoutMs: 1 });
    expect(await failure(hasty.metadata(file('pages1000.pdf')))).toBe('timeout');
  });
});

describe('formFields', () => {
  it('lists the AcroForm fields and serialises their data as XFDF', async () => {
    const form = await inspector.formFields(file('rich.pdf'));
    expect(form.formType).toBe('acroForm');
    expect(form.xfa).toBe(false);
    expect(form.fields.map((f) => [f.fullyQualifiedName, f.type, f.value])).toEqual([
      ['person.name', 'text', 'Grace <Hopper> & Co'],
      ['agree', 'checkBox', 'Yes'],
      ['color', 'comboBox', 'green'],
      ['fruits', 'listBox', 'apple, cherry'],
    ]);
    expect(form.fields[3]!.values).toEqual(['apple', 'cherry']);
    const xml = form.xfdf.toString('utf8');
    expect(xml).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<xfdf xmlns="http://ns.adobe.com/xfdf/" xml:space="preserve"><fields>' +
        '<field name="person"><field name="name"><value>Grace &lt;Hopper&gt; &amp; Co</value></field></field>' +
        '<field name="agree"><value>Yes</value></field>' +
        '<field name="color"><value>green</value></field>' +
        '<field name="fruits"><value>apple</value><value>cherry</value></field>' +
        '</fields></xfdf>\n',
    );
  });

  it('reports no form for a plain PDF, and XFA forms as such', async () => {
    const none = await inspector.formFields(file('plain.pdf'));
    expect(none).toMatchObject({ formType: 'none', xfa: false, fields: [] });

    for (const [name, dynamic] of [
      ['xfa-static.pdf', false],
      ['xfa-dynamic.pdf', true],
    ] as const) {
      const doc = await PDFDocument.load(fs.readFileSync(file('rich.pdf')), { preserveXFA: true });
      const xfa = doc.context.register(doc.context.stream('<xdp:xdp xmlns:xdp="http://ns.adobe.com/xdp/"></xdp:xdp>'));
      doc.getForm().acroForm.dict.set(PDFName.of('XFA'), xfa);
      if (dynamic) doc.catalog.set(PDFName.of('NeedsRendering'), doc.context.obj(true));
      fs.writeFileSync(file(name), await doc.save());
      const form = await inspector.formFields(file(name));
      expect(form.formType).toBe(dynamic ? 'dynamicXFA' : 'staticXFA');
      expect(form.xfa).toBe(true);
      expect((await inspector.metadata(file(name))).information.formType).toBe(form.formType);
    }
  });

  it('needs the password of a protected file', async () => {
    expect(await failure(inspector.formFields(file('user-aes256.pdf')))).toBe('passwordRequired');
    const form = await inspector.formFields(file('user-aes256.pdf'), { password: 'user pw' });
    expect(form.fields).toHaveLength(4);
  });
});
