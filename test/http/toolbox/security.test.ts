import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, PDFName, StandardFonts } from '@cantoo/pdf-lib';
import { describe, expect, it } from 'vitest';
import { bearer } from '../../helpers/client.js';
import { pdfFacts } from '../../helpers/converter.js';
import { info } from '../../helpers/documents.js';
import { useTestServer } from '../../helpers/fixture.js';
import { numberedPdf, runToolbox, toolboxOk } from '../../helpers/toolbox.js';

const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures/pdf');
const scratch = mkdtempSync(path.join(os.tmpdir(), 'quire-security-'));
let counter = 0;

interface Encryption {
  R: number;
  P: number;
  /** "print low resolution" → "allowed" / "not allowed", "stream encryption method" → "AESv3", ... */
  facts: Record<string, string>;
  supplied: string;
}

/** What qpdf says about a file's encryption, opened with `password`. */
function showEncryption(file: string, password: string): Encryption {
  const text = execFileSync('qpdf', [`--password=${password}`, '--show-encryption', file], { encoding: 'utf8' });
  const facts: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^([a-z ]+): (.+)$/.exec(line.trim());
    if (match) facts[match[1]!] = match[2]!;
  }
  return {
    R: Number(/^R = (\d+)/m.exec(text)?.[1]),
    P: Number(/^P = (-?\d+)/m.exec(text)?.[1]),
    facts,
    supplied: /Supplied password is (\w+) password/.exec(text)?.[1] ?? '',
  };
}

/** qpdf's verdict on opening without a password (or with a wrong one). */
function opens(file: string, password = ''): boolean {
  return spawnSync('qpdf', [`--password=${password}`, '--show-npages', file]).status === 0;
}

function qpdfEncrypted(source: Buffer, user: string, owner: string): Buffer {
  const input = path.join(scratch, `plain-${counter}.pdf`);
  const output = path.join(scratch, `enc-${counter++}.pdf`);
  writeFileSync(input, source);
  execFileSync('qpdf', ['--encrypt', user, owner, '256', '--', input, output]);
  return readFileSync(output);
}

/** A one-page PDF with an uncompressed XMP metadata stream (marker text "quire-xmp-marker"). */
async function pdfWithXmp(): Promise<Buffer> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  document.addPage([595, 842]).drawText('WITH-XMP', { x: 50, y: 700, size: 24, font });
  const xmp =
    '<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">' +
    '<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>quire-xmp-marker</dc:title></rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>';
  const stream = document.context.stream(xmp, { Type: 'Metadata', Subtype: 'XML' });
  document.catalog.set(PDFName.of('Metadata'), document.context.register(stream));
  return Buffer.from(await document.save({ useObjectStreams: false }));
}

const certificate = (name: string) => ({ source: 'value', value: readFileSync(path.join(FIXTURES, `${name}.cert.pem`)).toString('base64') });
const ALL = {
  canAssemble: true,
  canExtractContent: true,
  canExtractForAccessibility: true,
  canFillInForm: true,
  canModify: true,
  canModifyAnnotations: true,
  canPrint: true,
  canPrintHighRes: true,
};
const NONE = {
  canAssemble: false,
  canExtractContent: false,
  canExtractForAccessibility: false,
  canFillInForm: false,
  canModify: false,
  canModifyAnnotations: false,
  canPrint: false,
  canPrintHighRes: false,
};

const PDFBOX_JARS = ['pdfbox2', 'fontbox2', 'commons-logging', 'bcprov', 'bcpkix', 'bcutil'].map((jar) => `/usr/share/java/${jar}.jar`);
const hasPdfBox = PDFBOX_JARS.every((jar) => existsSync(jar)) && spawnSync('java', ['-version']).status === 0;

/**
 * Opens certificate-encrypted PDFs with Apache PDFBox (an independent reader of the public-key
 * handler), each with the private key of a fixture pair, in one JVM run; one line per file:
 * the permissions PDFBox grants and the text.
 */
function openWithPdfBox(opens: [name: string, file: string][]): string[] {
  const source = path.join(scratch, 'PubSecOpen.java');
  writeFileSync(
    source,
    `import java.io.*; import org.apache.pdfbox.pdmodel.PDDocument; import org.apache.pdfbox.pdmodel.encryption.AccessPermission; import org.apache.pdfbox.text.PDFTextStripper;
public class PubSecOpen { public static void main(String[] a) throws Exception { for (int i = 0; i + 2 < a.length; i += 3) {
  try (PDDocument d = PDDocument.load(new File(a[i + 2]), "pw", new FileInputStream(a[i]), a[i + 1])) {
    AccessPermission p = d.getCurrentAccessPermission();
    System.out.println("print=" + p.canPrint() + " modify=" + p.canModify() + " extract=" + p.canExtractContent() + " text=" + new PDFTextStripper().getText(d).replaceAll("\\\\s+", " ").trim());
  } catch (Exception e) { System.out.println("ERROR " + e.getMessage()); } } } }`,
  );
  const args: string[] = [];
  for (const [name, file] of opens) {
    const p12 = path.join(scratch, `${name}.p12`);
    if (!existsSync(p12)) {
      execFileSync('openssl', [
        'pkcs12',
        '-export',
        '-inkey',
        path.join(FIXTURES, `${name}.key.pem`),
        '-in',
        path.join(FIXTURES, `${name}.cert.pem`),
        '-out',
        p12,
        '-passout',
        'pass:pw',
        '-name',
        name,
      ]);
    }
    args.push(p12, name, file);
  }
  const output = execFileSync('java', ['-cp', PDFBOX_JARS.join(':'), source, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  return output.trim().split('\n');
}

describe('toolbox security', () => {
  const { server, session, upload, download } = useTestServer();

  const documentInfo = async (id: string) => (await (await fetch(`${server.rest}/documents/${id}/info`, { headers: bearer(session.token) })).json()) as Record<string, any>;
  const supplyPassword = async (id: string, body: unknown) => {
    const response = await fetch(`${server.rest}/documents/${id}/security/password`, {
      method: 'PUT',
      headers: { ...bearer(session.token), 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return (await response.json()) as Record<string, any>;
  };

  it('encrypts with a non-ASCII open password, AES-256 when no key is named, every permission denied by default', async () => {
    const uploaded = await upload(await numberedPdf(2));
    await toolboxOk(server.rest, session.token, uploaded.documentId, [{ security: { encrypt: { password: { open: 'büro' } } } }]);
    const file = await download(uploaded.documentId);
    expect(opens(file)).toBe(false);
    expect(opens(file, 'buero')).toBe(false);
    expect(pdfFacts(file, 'büro')).toMatchObject({ pages: 2 });
    expect(pdfFacts(file, 'büro').text).toContain('PAGE-2');
    const encryption = showEncryption(file, 'büro');
    expect(encryption).toMatchObject({ R: 6, supplied: 'user' });
    expect(encryption.facts).toMatchObject({
      'stream encryption method': 'AESv3',
      'string encryption method': 'AESv3',
      'print low resolution': 'not allowed',
      'print high resolution': 'not allowed',
      'modify document assembly': 'not allowed',
      'modify forms': 'not allowed',
      'modify annotations': 'not allowed',
      'modify other': 'not allowed',
      'extract for any purpose': 'not allowed',
    });
    // The permission password is empty, so a random one nobody knows keeps the restrictions in force.
    expect(showEncryption(file, 'büro').supplied).toBe('user');
  });

  it('writes each documented key with the permission bits the flags ask for', async () => {
    const flags = { ...NONE, canPrint: true, canExtractContent: true, canFillInForm: true, canAssemble: true };
    // P: reserved bits 7-8 and 13-32 set; print (3), extract (5), fill in forms (9), assemble (11).
    const expected = 0xfffff0c0 | 4 | 16 | 256 | 1024 | 0;
    const cases = [
      // qpdf names the method only for crypt filters (V 4 and 5); revision 3 is RC4 by definition.
      { key: 'RC4_128', R: 3, method: undefined, P: expected },
      // Revisions 4 and 6 always allow extraction for accessibility (bit 10), as ISO 32000-2 requires.
      { key: 'AES_128', R: 4, method: 'AESv2', P: expected | 512 },
      { key: 'AES_256', R: 6, method: 'AESv3', P: expected | 512 },
    ];
    for (const { key, R, method, P } of cases) {
      const uploaded = await upload(await numberedPdf(1));
      await toolboxOk(server.rest, session.token, uploaded.documentId, [
        { security: { encrypt: { ...flags, contentEncryption: 'encryptEverything', password: { encryptionKey: key, open: 'open', permission: 'permission' } } } },
      ]);
      const file = await download(uploaded.documentId);
      expect(opens(file), key).toBe(false);
      const asUser = showEncryption(file, 'open');
      expect(asUser, key).toMatchObject({ R, P, supplied: 'user' });
      expect(asUser.facts['stream encryption method'], key).toBe(method);
      expect(asUser.facts, key).toMatchObject({ 'print low resolution': 'allowed', 'print high resolution': 'not allowed', 'modify other': 'not allowed' });
      expect(showEncryption(file, 'permission').supplied, key).toBe('owner');
      expect(pdfFacts(file, 'open').text, key).toContain('PAGE-1');
    }
    // 40-bit RC4 (revision 2) with flags it can express.
    const uploaded = await upload(await numberedPdf(1));
    await toolboxOk(server.rest, session.token, uploaded.documentId, [
      { security: { encrypt: { ...NONE, canPrint: true, canPrintHighRes: true, password: { encryptionKey: 'RC4_40', open: 'open', permission: 'permission' } } } },
    ]);
    const file = await download(uploaded.documentId);
    expect(showEncryption(file, 'open')).toMatchObject({ R: 2, P: 0xffffffc0 | 4 | 0 });
  });

  it('grants full printing and every modification when asked, and the permission password opens as owner', async () => {
    const uploaded = await upload(await numberedPdf(1));
    await toolboxOk(server.rest, session.token, uploaded.documentId, [{ security: { encrypt: { ...ALL, password: { open: '', permission: 'Chef' } } } }]);
    const file = await download(uploaded.documentId);
    // No open password: anyone opens it, as user.
    expect(opens(file)).toBe(true);
    expect(showEncryption(file, '')).toMatchObject({ R: 6, P: -4, supplied: 'user' });
    expect(showEncryption(file, 'Chef').supplied).toBe('owner');
  });

  it('leaves the XMP metadata readable with exposeMetadata, and only then', async () => {
    for (const [contentEncryption, visible] of [
      ['exposeMetadata', true],
      ['encryptEverything', false],
    ] as const) {
      const uploaded = await upload(await pdfWithXmp());
      await toolboxOk(server.rest, session.token, uploaded.documentId, [{ security: { encrypt: { contentEncryption, password: { open: 'x', encryptionKey: 'AES_256' } } } }]);
      const file = await download(uploaded.documentId);
      expect(readFileSync(file).includes('quire-xmp-marker'), contentEncryption).toBe(visible);
      expect(pdfFacts(file, 'x').text).toContain('WITH-XMP');
      expect(showEncryption(file, 'x').facts['stream encryption method']).toBe('AESv3');
    }
  });

  it('runs after other operations of the chain', async () => {
    const uploaded = await upload(await numberedPdf(3));
    await toolboxOk(server.rest, session.token, uploaded.documentId, [{ delete: { pages: '1' } }, { security: { encrypt: { password: { open: 'k' } } } }]);
    const facts = pdfFacts(await download(uploaded.documentId), 'k');
    expect(facts.pages).toBe(2);
    expect(facts.text).toContain('PAGE-3');
  });

  it("decrypts with the call's password, and replaces an old protection by a new one", async () => {
    const locked = await upload(qpdfEncrypted(await numberedPdf(2), 'geheim', 'owner-pw'), 'locked.pdf');
    expect((await runToolbox(server.rest, session.token, locked.documentId, [{ security: { decrypt: {} } }])).error).toMatchObject({ errorCode: -5009 });
    expect((await runToolbox(server.rest, session.token, locked.documentId, [{ security: { decrypt: {} } }], { password: { open: 'wrong' } })).error).toMatchObject({ errorCode: -5008 });
    await toolboxOk(server.rest, session.token, locked.documentId, [{ security: { decrypt: {} } }], { password: { open: 'geheim' } });
    const file = await download(locked.documentId);
    expect(spawnSync('qpdf', ['--is-encrypted', file]).status).toBe(2);
    expect(pdfFacts(file).text).toContain('PAGE-2');

    const relocked = await upload(qpdfEncrypted(await numberedPdf(1), 'alt', 'alt-owner'), 'relock.pdf');
    await toolboxOk(server.rest, session.token, relocked.documentId, [{ security: { encrypt: { password: { open: 'neu' } } } }], { password: { open: 'alt' } });
    const relockedFile = await download(relocked.documentId);
    expect(opens(relockedFile, 'alt')).toBe(false);
    expect(opens(relockedFile, 'alt-owner')).toBe(false);
    expect(opens(relockedFile, 'neu')).toBe(true);

    // decrypt on an unprotected document changes nothing.
    const plain = await upload(await numberedPdf(1));
    await toolboxOk(server.rest, session.token, plain.documentId, [{ security: { decrypt: {} } }]);
    expect(pdfFacts(await download(plain.documentId)).text).toContain('PAGE-1');
  });

  it('refuses what it cannot write (-104) and bad values (-14), leaving the document as it was', async () => {
    const uploaded = await upload(await numberedPdf(1));
    const refusals: [unknown, number, RegExp][] = [
      [{ encrypt: { canModify: true, password: { encryptionKey: 'RC4_40', open: 'a' } } }, -104, /encrypt\.canAssemble cannot be honoured: 40-bit RC4/],
      [{ encrypt: { canPrint: true, password: { encryptionKey: 'RC4_40', open: 'a' } } }, -104, /encrypt\.canPrintHighRes cannot be honoured/],
      [{ encrypt: { contentEncryption: 'exposeMetadata', password: { encryptionKey: 'RC4_40', open: 'a' } } }, -104, /encrypt\.contentEncryption/],
      [{ encrypt: { password: { encryptionKey: 'RC4_128', open: '日本' } } }, -14, /encrypt\.password\.open: RC4_128 passwords are limited to the characters of PDFDocEncoding/],
      [{ encrypt: { password: { open: 'two\nlines' } } }, -14, /encrypt\.password\.open: a PDF password cannot contain a line break/],
      [{ encrypt: { password: { encryptionKey: 'DES' } } }, -14, /encryptionKey/],
      [{ encrypt: { contentEncryption: 'some' } }, -14, /contentEncryption/],
      [{}, -14, /toolbox\[0\]\.security: give exactly one of decrypt, encrypt and encryptCertificate/],
      [{ decrypt: {}, encrypt: {} }, -14, /got decrypt and encrypt/],
      [{ encryptCertificate: { recipient: [] } }, -14, /recipient/],
      [
        { encryptCertificate: { recipient: [{ certificate: { source: 'value', value: Buffer.from('no certificate').toString('base64') } }] } },
        -14,
        /recipient\[0\]\.certificate: the certificate cannot be read/,
      ],
      [{ encryptCertificate: { recipient: [{ certificate: { source: 'uri', uri: 'http://169.254.169.254/' } }] } }, -104, /recipient\[0\]\.certificate\.source "uri" is not supported/],
    ];
    for (const [options, code, message] of refusals) {
      const outcome = await runToolbox(server.rest, session.token, uploaded.documentId, [{ security: options }]);
      expect(outcome.error, JSON.stringify(options)).toMatchObject({ errorCode: code });
      expect(outcome.error?.errorMessage, JSON.stringify(options)).toMatch(message);
    }
    expect(await info(server.rest, session.token, uploaded.documentId)).toMatchObject({ fileSize: uploaded.fileSize });
    const file = await download(uploaded.documentId);
    expect(spawnSync('qpdf', ['--is-encrypted', file]).status).toBe(2);
  });

  it('refuses a certificate without an RSA key (-14)', async () => {
    const key = path.join(scratch, 'ec.key');
    const cert = path.join(scratch, 'ec.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=EC'], { stdio: 'ignore' });
    const uploaded = await upload(await numberedPdf(1));
    const outcome = await runToolbox(server.rest, session.token, uploaded.documentId, [
      { security: { encryptCertificate: { recipient: [{ certificate: { source: 'value', value: readFileSync(cert).toString('base64') } }] } } },
    ]);
    expect(outcome.error).toMatchObject({ errorCode: -14 });
    expect(outcome.error?.errorMessage).toMatch(/holds a ec key; certificate encryption of PDFs needs an RSA key/);
  });

  it('refuses a damaged PDF (-7)', async () => {
    const damaged = await upload(Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.from('garbage '.repeat(100))]), 'damaged.pdf');
    const outcome = await runToolbox(server.rest, session.token, damaged.documentId, [{ security: { encrypt: { password: { open: 'x' } } } }]);
    expect(outcome.error).toMatchObject({ errorCode: -7 });
  });

  it('encrypts for certificate holders (/Adobe.PubSec) with per-recipient permissions; the server and PDFBox open it with the private key', async () => {
    const files: string[] = [];
    for (const encryptionKey of ['AES_256', 'AES_128', 'RC4_128', 'RC4_40']) {
      const uploaded = await upload(await numberedPdf(2));
      await toolboxOk(server.rest, session.token, uploaded.documentId, [
        {
          security: {
            encryptCertificate: {
              encryptionKey,
              contentEncryption: 'encryptEverything',
              recipient: [{ ...ALL, certificate: certificate('recipient') }],
            },
          },
        },
      ]);
      const file = await download(uploaded.documentId);
      files.push(file);
      const bytes = readFileSync(file).toString('latin1');
      expect(bytes, encryptionKey).toContain('/Filter /Adobe.PubSec');
      expect(bytes, encryptionKey).not.toContain('PAGE-1');
      // The server's own reader: it names the recipient, accepts its key pair and refuses another one.
      const document = await documentInfo(uploaded.documentId);
      expect(document.error, encryptionKey).toMatchObject({ errorCode: -5055 });
      expect(document.password.recipients, encryptionKey).toEqual([expect.objectContaining({ serialNumber: '11950311482569858102' })]);
      const pair = (name: string) => ({
        keyPair: {
          certificate: { source: 'value', value: readFileSync(path.join(FIXTURES, `${name}.cert.pem`), 'utf8') },
          privateKey: { source: 'value', value: readFileSync(path.join(FIXTURES, `${name}.key.pem`), 'utf8') },
        },
      });
      expect((await supplyPassword(uploaded.documentId, pair('other'))).error, encryptionKey).toMatchObject({ errorCode: -5008 });
      expect((await supplyPassword(uploaded.documentId, pair('recipient'))).error, encryptionKey).toMatchObject({ errorCode: 0 });
    }

    // Two recipients with their own permissions, clear-text metadata.
    const uploaded = await upload(await pdfWithXmp());
    await toolboxOk(server.rest, session.token, uploaded.documentId, [
      {
        security: {
          encryptCertificate: {
            encryptionKey: 'AES_256',
            contentEncryption: 'exposeMetadata',
            recipient: [
              { ...NONE, canPrint: true, canPrintHighRes: true, certificate: certificate('recipient') },
              // PEM text instead of Base64 is accepted too.
              { ...NONE, canExtractContent: true, certificate: { source: 'value', value: readFileSync(path.join(FIXTURES, 'other.cert.pem'), 'utf8') } },
            ],
          },
        },
      },
    ]);
    const file = await download(uploaded.documentId);
    expect(readFileSync(file).includes('quire-xmp-marker')).toBe(true);
    expect((await documentInfo(uploaded.documentId)).password.recipients).toHaveLength(2);
    if (hasPdfBox) {
      expect(openWithPdfBox([...files.map((f) => ['recipient', f] as [string, string]), ['recipient', file], ['other', file]])).toEqual([
        ...Array(4).fill('print=true modify=true extract=true text=PAGE-1 PAGE-2'),
        'print=true modify=false extract=false text=WITH-XMP',
        'print=false modify=false extract=true text=WITH-XMP',
      ]);
    }
  });
});
