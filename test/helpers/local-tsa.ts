import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { openssl } from './certificates.js';

/**
 * A local RFC 3161 time-stamp authority: `openssl ts -reply` behind a tiny HTTP handler on 127.0.0.1.
 * Its certificate is self-signed unless `signer` gives one (e.g. issued by a test CA, with the chain
 * the tokens carry in `chain`).
 */
export interface LocalTsa {
  url: string;
  dir: string;
  /** Requests answered so far; request n's query is `<dir>/q<n>.tsq`. */
  readonly requests: number;
  close(): Promise<void>;
}

export async function startLocalTsa(signer?: { cert: string; key: string; chain?: string }): Promise<LocalTsa> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'quire-tsa-'));
  const cert = signer?.cert ?? path.join(dir, 'tsa.crt');
  const key = signer?.key ?? path.join(dir, 'tsa.key');
  if (!signer) {
    openssl(
      ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-sha256', '-days', '5', '-subj', '/CN=Quire Test TSA'],
      ...['-addext', 'extendedKeyUsage=critical,timeStamping', '-keyout', key, '-out', cert],
    );
  }
  writeFileSync(path.join(dir, 'serial'), '01\n');
  writeFileSync(
    path.join(dir, 'tsa.cnf'),
    [
      '[ tsa ]',
      'default_tsa = tsa_config',
      '[ tsa_config ]',
      `dir = ${dir}`,
      'serial = $dir/serial',
      'crypto_device = builtin',
      `signer_cert = ${cert}`,
      `certs = ${signer?.chain ?? cert}`,
      `signer_key = ${key}`,
      'signer_digest = sha256',
      'default_policy = 1.2.3.4.1',
      'digests = sha256, sha384, sha512',
      'accuracy = secs:1',
      'ordering = no',
      'tsa_name = no',
      'ess_cert_id_chain = no',
      'ess_cert_id_alg = sha256',
      '',
    ].join('\n'),
  );
  let requests = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests++;
      const query = path.join(dir, `q${requests}.tsq`);
      const reply = path.join(dir, `r${requests}.tsr`);
      writeFileSync(query, Buffer.concat(chunks));
      execFileSync('openssl', ['ts', '-reply', '-config', path.join(dir, 'tsa.cnf'), '-queryfile', query, '-out', reply], { stdio: 'ignore' });
      response.writeHead(200, { 'content-type': 'application/timestamp-reply' }).end(readFileSync(reply));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/tsa`,
    dir,
    get requests() {
      return requests;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
