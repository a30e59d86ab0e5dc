import { spawnSync } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { openssl } from '../helpers/certificates.js';
import { bearer } from '../helpers/client.js';
import { realPdf } from '../helpers/documents.js';
import { useTestServer } from '../helpers/fixture.js';
import { scratchDir } from '../helpers/pdf-tools.js';

const GENERATED = 'Generic self-signed certificate';

/** pdfsig's report (its exit status is non-zero for the untrusted self-signed certificate). */
function pdfsig(file: string): string {
  const result = spawnSync('pdfsig', ['-nocert', file], { encoding: 'utf8' });
  return `${result.stdout}${result.stderr}`;
}

describe('signature web service with the generated key store', () => {
  const { server, session, upload, download } = useTestServer();

  async function sign(documentId: string, add: Record<string, unknown>, token = session.token): Promise<Response> {
    return fetch(`${server.rest}/signature/${documentId}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      body: JSON.stringify({ signature: { add } }),
    });
  }

  it('lists the generated key store with its self-signed RSA-2048 certificate, kept 0600 in the data dir', async () => {
    const response = await fetch(`${server.rest}/authentication/user/certificates/`, { headers: session.headers });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { certificates: Record<string, unknown>[]; keyStores: Record<string, unknown>[] };
    expect(body.keyStores).toEqual([{ isKeyStoreAccessible: true, keyStoreName: 'global', keyStoreOrigin: 'global' }]);
    expect(body.certificates).toEqual([{ aliasName: GENERATED, certificate: expect.any(String), hasPrivateKey: true, isPrivateKeyReadable: true, keyStoreName: 'global', keyStoreOrigin: 'global' }]);
    const scratch = scratchDir('sig-cert');
    try {
      const der = scratch.file('cert.der');
      writeFileSync(der, Buffer.from(body.certificates[0]!.certificate as string, 'base64'));
      const text = openssl('x509', '-inform', 'DER', '-in', der, '-noout', '-text');
      expect(text).toContain('Public-Key: (2048 bit)');
      expect(text).toContain('sha256WithRSAEncryption');
    } finally {
      scratch.remove();
    }
    for (const file of ['signature.p12', 'signature.password']) {
      expect(statSync(path.join(server.dataDir, 'keys', file)).mode & 0o777).toBe(0o600);
    }
  });

  it('refuses an unknown key store with -35 and a wrong password with -5057', async () => {
    const put = (name: string, password: string) =>
      fetch(`${server.rest}/authentication/user/certificates/passwords/${name}`, {
        method: 'PUT',
        headers: { ...session.headers, 'content-type': 'application/json' },
        body: JSON.stringify({ keyStorePassword: password, aliases: {} }),
      });
    const unknown = await put('missing', 'x');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toBe('application/json');
    expect(((await unknown.json()) as { errorCode: number }).errorCode).toBe(-35);
    const wrong = await put('global', 'wrong');
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as { errorCode: number }).errorCode).toBe(-5057);
  });

  it('signs with the generated key as an incremental update: pdfsig valid, whole document, PAdES SubFilter; twice keeps both valid', async () => {
    const original = await realPdf(2);
    const document = await upload(original, 'contract.pdf');
    const first = await sign(document.documentId, { keyName: GENERATED, reason: 'Approved', location: 'Berlin', certificationLevel: 'formFillingAndSignatures' });
    expect(first.status).toBe(303);
    const once = await download(document.documentId, 'pdf');
    const onceBytes = readFileSync(once);
    expect(onceBytes.subarray(0, original.length).equals(original)).toBe(true);
    const report = pdfsig(once);
    expect(report).toContain('Signature is Valid.');
    expect(report).toContain('Total document signed');
    expect(report).toContain('Signature Type: ETSI.CAdES.detached');
    expect(report).toContain('Signer Certificate Common Name: Quire signature (self-signed)');
    expect(onceBytes.toString('latin1')).toContain('/Reason (Approved)');

    const second = await sign(document.documentId, { certificationLevel: 'none' });
    expect(second.status).toBe(303);
    const twice = await download(document.documentId, 'pdf');
    const both = pdfsig(twice);
    expect(both.match(/Signature is Valid\./g)).toHaveLength(2);
    expect(both).toContain('Signature Field Name: Signature2');
  });

  it('answers -328 for a page past the end and leaves the document as it was', async () => {
    const original = await realPdf(1);
    const document = await upload(original, 'one-page.pdf');
    const response = await sign(document.documentId, { keyName: GENERATED, appearance: { page: 2000 } });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(((await response.json()) as { errorCode: number }).errorCode).toBe(-328);
    const stored = readFileSync(await download(document.documentId, 'pdf'));
    expect(stored.equals(original)).toBe(true);
  });

  it('refuses another signature on a document certified with noChanges (P=1), and an unknown key', async () => {
    const document = await upload(await realPdf(1), 'certified.pdf');
    expect((await sign(document.documentId, { certificationLevel: 'noChanges' })).status).toBe(303);
    const again = await sign(document.documentId, { certificationLevel: 'none' });
    expect(again.status).toBe(400);
    const body = (await again.json()) as { errorCode: number; errorMessage: string };
    expect(body.errorCode).toBe(-181);
    expect(body.errorMessage).toMatch(/P=1/);
    const unknownKey = await sign(document.documentId, { keyName: 'no such key' });
    expect(((await unknownKey.json()) as { errorCode: number }).errorCode).toBe(-180);
  });

  it('draws a visible appearance at the position asked for, with embedded fonts that render umlauts, and an image', async () => {
    const document = await upload(await realPdf(2), 'visible.pdf');
    const png = await sharp({ create: { width: 40, height: 20, channels: 4, background: { r: 200, g: 0, b: 0, alpha: 0.8 } } })
      .png()
      .toBuffer();
    const response = await sign(document.documentId, {
      keyName: GENERATED,
      certificationLevel: 'none',
      appearance: {
        page: 2,
        position: { x: 10, y: 20, width: 90, height: 30, metrics: 'mm', coordinates: 'user' },
        name: 'Jürgen Müßig',
        identifierElements: { textSignedBy: 'Unterzeichnet von' },
        image: { data: { source: 'value', value: png.toString('base64') }, position: 'center', opacity: 40 },
      },
    });
    expect(response.status).toBe(303);
    const file = await download(document.documentId, 'pdf');
    expect(pdfsig(file)).toContain('Signature is Valid.');
    const text = spawnSync('pdftotext', ['-f', '2', '-l', '2', file, '-'], { encoding: 'utf8' }).stdout;
    expect(text).toContain('Jürgen Müßig');
    expect(text).toContain('Unterzeichnet von Quire signature (self-signed)');
    expect(spawnSync('pdftotext', ['-f', '1', '-l', '1', file, '-'], { encoding: 'utf8' }).stdout).not.toContain('Müßig');
    const fonts = spawnSync('pdffonts', ['-f', '2', '-l', '2', file], { encoding: 'utf8' }).stdout;
    expect(fonts).toMatch(/CID TrueType\s+Identity-H\s+yes\s+yes\s+yes/);
    expect(spawnSync('pdfimages', ['-list', '-f', '2', '-l', '2', file], { encoding: 'utf8' }).stdout).toMatch(/\s40\s+20\s+rgb/);
    // The widget's rectangle: 10 mm from the left, 20 mm from the top of the A4 page (595 x 842 pt).
    const mm = 72 / 25.4;
    const widget = spawnSync('qpdf', ['--json=2', '--json-key=qpdf', file], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).stdout;
    const rect = Object.values((JSON.parse(widget) as { qpdf: [unknown, Record<string, { value?: Record<string, unknown> }>] }).qpdf[1])
      .map((o) => o.value)
      .find((v) => v?.['/FT'] === '/Sig')?.['/Rect'] as number[];
    expect(rect[0]).toBeCloseTo(10 * mm, 2);
    expect(rect[3]).toBeCloseTo(842 - 20 * mm, 2);
    expect(rect[2]! - rect[0]!).toBeCloseTo(90 * mm, 2);
  });

  it('signs right after a conversion (converter.signature), with the defaults the signature service has', async () => {
    const png = await sharp({ create: { width: 60, height: 40, channels: 3, background: { r: 0, g: 90, b: 200 } } })
      .png()
      .toBuffer();
    const document = await upload(png, 'picture.png');
    const response = await fetch(`${server.rest}/converter/${document.documentId}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...session.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ converter: { signature: { add: { reason: 'Converted', appearance: { position: { x: 10, y: 10 } } } } } }),
    });
    expect(response.status).toBe(303);
    const file = await download(document.documentId, 'pdf');
    const report = pdfsig(file);
    expect(report).toContain('Signature is Valid.');
    expect(report).toContain('Total document signed');
    // certificationLevel's default (noChanges): a certification signature with P=1.
    expect(qpdfJson(file)).toMatch(/"\/P": 1/);
  });

  it('signs with a key pair sent with the call (signer.keyPair)', async () => {
    const scratch = scratchDir('sig-pair');
    try {
      openssl(
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-subj',
        '/CN=Call Signer',
        '-keyout',
        scratch.file('k.pem'),
        '-out',
        scratch.file('c.pem'),
        '-days',
        '5',
      );
      const document = await upload(await realPdf(1), 'pair.pdf');
      const response = await sign(document.documentId, {
        certificationLevel: 'none',
        signer: { keyPair: { certificate: { value: readFileSync(scratch.file('c.pem'), 'utf8') }, privateKey: { value: readFileSync(scratch.file('k.pem')).toString('base64') } } },
      });
      expect(response.status).toBe(303);
      const report = pdfsig(await download(document.documentId, 'pdf'));
      expect(report).toContain('Signature is Valid.');
      expect(report).toContain('Signer Certificate Common Name: Call Signer');
    } finally {
      scratch.remove();
    }
  });
});

/** Every object of a file as qpdf's JSON text (object streams unpacked). */
function qpdfJson(file: string): string {
  return spawnSync('qpdf', ['--json=2', '--json-key=qpdf', file], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).stdout;
}

describe('signature.clear', () => {
  const { server, session, upload, download } = useTestServer();

  const call = (documentId: string, signature: Record<string, unknown>) =>
    fetch(`${server.rest}/signature/${documentId}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...session.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ signature }),
    });

  async function signedTwice(): Promise<string> {
    const document = await upload(await realPdf(1), 'to-clear.pdf');
    const visible = { page: 1, position: { x: 20, y: 20, width: 80, height: 25 }, name: 'Jörg Flattened' };
    expect((await call(document.documentId, { add: { certificationLevel: 'formFillingAndSignatures', appearance: visible } })).status).toBe(303);
    expect((await call(document.documentId, { add: { certificationLevel: 'none' } })).status).toBe(303);
    expect(pdfsig(await download(document.documentId, 'pdf')).match(/Signature is Valid\./g)).toHaveLength(2);
    return document.documentId;
  }

  it('removes every signature and its field; the visible appearance goes too', async () => {
    const id = await signedTwice();
    expect((await call(id, { clear: { flatten: false } })).status).toBe(303);
    const file = await download(id, 'pdf');
    expect(pdfsig(file)).toMatch(/does not contain any signatures/);
    const objects = qpdfJson(file);
    expect(objects).not.toContain('"/FT": "/Sig"');
    expect(objects).not.toContain('/DocMDP');
    expect(objects).toContain('"/Type": "/Page"');
    expect(spawnSync('pdftotext', [file, '-'], { encoding: 'utf8' }).stdout).not.toContain('Jörg Flattened');
  });

  it('with flatten, keeps the appearance as page content', async () => {
    const id = await signedTwice();
    expect((await call(id, { clear: { flatten: true } })).status).toBe(303);
    const file = await download(id, 'pdf');
    expect(pdfsig(file)).toMatch(/does not contain any signatures/);
    expect(spawnSync('qpdf', ['--check', file], { encoding: 'utf8' }).status).toBe(0);
    expect(spawnSync('pdftotext', [file, '-'], { encoding: 'utf8' }).stdout).toContain('Jörg Flattened');
    // The field is gone: no widget annotation is left to draw it; the page draws it now.
    expect(qpdfJson(file)).not.toContain('"/FT": "/Sig"');
  });
});
