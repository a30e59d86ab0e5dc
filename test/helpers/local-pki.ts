import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { openssl } from './certificates.js';

/**
 * A local public-key infrastructure for B-LT tests, all on 127.0.0.1: a root CA and an intermediate CA
 * (`openssl ca`, each with its own index), their OCSP responders (`openssl ocsp -index … -reqin`
 * behind a small node HTTP handler; the root answers itself, the intermediate through a delegated
 * responder certificate with OCSPSigning and ocsp-nocheck), their CRLs (`openssl ca -gencrl`, made at
 * each download, so a revocation shows at once) and their certificates for caIssuers. Certificates it
 * issues name these addresses in their AIA and CRL distribution points.
 */

export interface Issued {
  cert: string;
  key: string;
  /** The certificate, the intermediate and the root, PEM, in that order. */
  chainPem: string;
  subject: string;
  serial: string;
}

export interface LocalPki {
  base: string;
  dir: string;
  root: { cert: string };
  intermediate: { cert: string };
  /** Every request the handler got ("POST /ocsp/intermediate", "GET /crl/root.crl", …). */
  requests: string[];
  /** A certificate by the intermediate CA; `ocspUrl`/`crlUrl` override (null: none) the addresses it names. */
  issue(name: string, options?: { ocspUrl?: string | null; crlUrl?: string | null; extendedKeyUsage?: string }): Issued;
  revoke(issued: Issued): void;
  close(): Promise<void>;
}

const CA_NAMES = ['root', 'intermediate'] as const;
type CaName = (typeof CA_NAMES)[number];

export async function startLocalPki(): Promise<LocalPki> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'quire-pki-'));
  const requests: string[] = [];
  const caDir = (ca: CaName) => path.join(dir, ca);
  let counter = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests.push(`${request.method} ${request.url}`);
      const [, kind, file] = /^\/(ocsp|crl|ca)\/([a-z]+)/.exec(request.url ?? '') ?? [];
      const ca = CA_NAMES.find((name) => name === file);
      if (!ca) {
        response.writeHead(404).end();
        return;
      }
      const n = ++counter;
      const config = path.join(caDir(ca), 'ca.cnf');
      if (kind === 'ocsp' && request.method === 'POST') {
        const query = path.join(dir, `ocsp${n}.der`);
        const reply = path.join(dir, `ocsp${n}.resp`);
        writeFileSync(query, Buffer.concat(chunks));
        const signer =
          ca === 'root'
            ? ['-rsigner', path.join(caDir(ca), 'ca.crt'), '-rkey', path.join(caDir(ca), 'ca.key')]
            : ['-rsigner', path.join(caDir(ca), 'ocsp.crt'), '-rkey', path.join(caDir(ca), 'ocsp.key')];
        execFileSync('openssl', ['ocsp', '-index', path.join(caDir(ca), 'index.txt'), '-CA', path.join(caDir(ca), 'ca.crt'), ...signer, '-reqin', query, '-respout', reply, '-nmin', '10'], {
          stdio: 'ignore',
        });
        response.writeHead(200, { 'content-type': 'application/ocsp-response' }).end(readFileSync(reply));
      } else if (kind === 'crl') {
        const pem = path.join(dir, `crl${n}.pem`);
        execFileSync('openssl', ['ca', '-gencrl', '-config', config, '-out', pem], { stdio: 'ignore' });
        response.writeHead(200, { 'content-type': 'application/pkix-crl' }).end(execFileSync('openssl', ['crl', '-in', pem, '-outform', 'DER']));
      } else if (kind === 'ca') {
        response.writeHead(200, { 'content-type': 'application/pkix-cert' }).end(execFileSync('openssl', ['x509', '-in', path.join(caDir(ca), 'ca.crt'), '-outform', 'DER']));
      } else {
        response.writeHead(405).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const extensions = (issuer: CaName, body: string[], urls: { ocspUrl?: string | null; crlUrl?: string | null } = {}) => {
    const ocsp = urls.ocspUrl === undefined ? `${base}/ocsp/${issuer}` : urls.ocspUrl;
    const crl = urls.crlUrl === undefined ? `${base}/crl/${issuer}.crl` : urls.crlUrl;
    const aia = [ocsp ? `OCSP;URI:${ocsp}` : '', `caIssuers;URI:${base}/ca/${issuer}.crt`].filter(Boolean).join(',');
    return ['[ ext ]', ...body, `authorityInfoAccess = ${aia}`, ...(crl ? [`crlDistributionPoints = URI:${crl}`] : []), 'subjectKeyIdentifier = hash', 'authorityKeyIdentifier = keyid', ''].join('\n');
  };
  const makeCaDir = (ca: CaName) => {
    mkdirSync(path.join(caDir(ca), 'new'), { recursive: true });
    writeFileSync(path.join(caDir(ca), 'index.txt'), '');
    writeFileSync(path.join(caDir(ca), 'serial'), ca === 'root' ? '1000\n' : '2000\n');
    writeFileSync(path.join(caDir(ca), 'crlnumber'), '01\n');
    writeFileSync(
      path.join(caDir(ca), 'ca.cnf'),
      [
        '[ ca ]',
        'default_ca = own',
        '[ own ]',
        `dir = ${caDir(ca)}`,
        'database = $dir/index.txt',
        'new_certs_dir = $dir/new',
        'certificate = $dir/ca.crt',
        'private_key = $dir/ca.key',
        'serial = $dir/serial',
        'crlnumber = $dir/crlnumber',
        'default_md = sha256',
        'default_days = 30',
        'default_crl_days = 7',
        'policy = any',
        'unique_subject = no',
        'copy_extensions = none',
        '[ any ]',
        'commonName = supplied',
        'organizationName = optional',
        '',
      ].join('\n'),
    );
  };
  /** A key and a certificate signed by `issuer` with the extension lines `ext`. */
  const sign = (issuer: CaName, target: string, subject: string, ext: string): { cert: string; key: string } => {
    const key = `${target}.key`;
    const csr = `${target}.csr`;
    const cert = `${target}.crt`;
    const extFile = `${target}.ext`;
    writeFileSync(extFile, ext);
    openssl('req', '-new', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', csr, '-subj', subject);
    openssl('ca', '-batch', '-notext', '-config', path.join(caDir(issuer), 'ca.cnf'), '-extfile', extFile, '-extensions', 'ext', '-in', csr, '-out', cert);
    return { cert, key };
  };

  // The root: self-signed, a trust anchor (no status of its own).
  makeCaDir('root');
  openssl(
    ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-sha256', '-days', '30', '-subj', '/CN=Quire Test Root CA/O=Quire Tests'],
    ...['-addext', 'basicConstraints=critical,CA:true', '-addext', 'keyUsage=critical,keyCertSign,cRLSign', '-keyout', path.join(caDir('root'), 'ca.key'), '-out', path.join(caDir('root'), 'ca.crt')],
  );
  // The intermediate: issued by the root, checked at the root's responder and CRL.
  makeCaDir('intermediate');
  sign(
    'root',
    path.join(caDir('intermediate'), 'ca'),
    '/CN=Quire Test Intermediate CA/O=Quire Tests',
    extensions('root', ['basicConstraints = critical,CA:true', 'keyUsage = critical,keyCertSign,cRLSign']),
  );
  // The intermediate's delegated OCSP responder.
  sign(
    'intermediate',
    path.join(caDir('intermediate'), 'ocsp'),
    '/CN=Quire Test OCSP Responder/O=Quire Tests',
    ['[ ext ]', 'basicConstraints = critical,CA:false', 'keyUsage = critical,digitalSignature', 'extendedKeyUsage = critical,OCSPSigning', 'noCheck = ignored', ''].join('\n'),
  );
  const pem = (file: string) => readFileSync(file, 'utf8');
  const chainTail = () => `${pem(path.join(caDir('intermediate'), 'ca.crt'))}${pem(path.join(caDir('root'), 'ca.crt'))}`;

  return {
    base,
    dir,
    root: { cert: path.join(caDir('root'), 'ca.crt') },
    intermediate: { cert: path.join(caDir('intermediate'), 'ca.crt') },
    requests,
    issue(name, options = {}) {
      const subject = `/CN=${name}/O=Quire Tests`;
      const usage = options.extendedKeyUsage ? [`extendedKeyUsage = critical,${options.extendedKeyUsage}`] : [];
      const { cert, key } = sign(
        'intermediate',
        path.join(dir, name.replace(/[^A-Za-z0-9]+/g, '-')),
        subject,
        extensions('intermediate', ['basicConstraints = critical,CA:false', 'keyUsage = critical,digitalSignature,nonRepudiation', ...usage], options),
      );
      const serial = openssl('x509', '-in', cert, '-noout', '-serial')
        .trim()
        .replace(/^serial=/, '');
      return { cert, key, chainPem: `${pem(cert)}${chainTail()}`, subject: name, serial };
    },
    revoke(issued) {
      openssl('ca', '-config', path.join(caDir('intermediate'), 'ca.cnf'), '-revoke', issued.cert, '-crl_reason', 'keyCompromise');
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
