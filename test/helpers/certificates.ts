import { execFileSync } from 'node:child_process';

/** Runs openssl; its output (the tools are the independent makers and readers of key material in tests). */
export const openssl = (...args: string[]): string => execFileSync('openssl', args, { encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });

/** Runs the JDK's keytool; its output. */
export const keytool = (...args: string[]): string => execFileSync('keytool', args, { encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });

/** A self-signed certificate and its unencrypted key by openssl, as PEM files (P-256 unless `keyArgs` say otherwise). */
export function opensslSelfSigned(cert: string, key: string, subject: string, options: { days?: number; keyArgs?: string[] } = {}): void {
  const keyArgs = options.keyArgs ?? ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'];
  openssl('req', '-x509', ...keyArgs, '-nodes', '-keyout', key, '-out', cert, '-subj', subject, '-days', String(options.days ?? 30));
}

/** A new key pair with a self-signed certificate in a key store, by keytool (the store is created when missing). */
export function keytoolKeyPair(
  store: string,
  entry: { alias: string; keyalg: 'RSA' | 'EC'; keysize?: number; dname: string; storetype?: 'JKS' | 'PKCS12'; password: string; validity?: number },
): void {
  keytool(
    '-genkeypair',
    ...['-keystore', store, '-storetype', entry.storetype ?? 'JKS', '-storepass', entry.password, '-keypass', entry.password, '-alias', entry.alias],
    ...['-keyalg', entry.keyalg, ...(entry.keysize ? ['-keysize', String(entry.keysize)] : []), '-dname', entry.dname, '-validity', String(entry.validity ?? 30)],
  );
}
