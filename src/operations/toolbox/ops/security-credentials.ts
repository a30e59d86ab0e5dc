import type { DocumentCredentials } from '../../documents/credentials.js';
import type { SecurityOptions } from './security.schema.js';

/**
 * What opens the result of a chain that ran `security`, as far as the session knows it: the
 * passwords of its last `security` step when that is `encrypt` (webPDF remembers the protection a
 * session set itself, issue 13 item 3). The permission (owner) password when there is one — it
 * opens the document with every right, so later operations and a `decrypt` work — else the open
 * password. Nothing after `decrypt` or `encryptCertificate` (the session has no private key), nor
 * for an `encrypt` without passwords (it opens without one; its permission password is random).
 *
 * Kept apart from security.ts so the toolbox service reads it without loading the operation's engines.
 */
export function credentialsAfterSecurity(steps: ReadonlyArray<{ name: string; options: unknown }>): DocumentCredentials | undefined {
  const last = steps.findLast((step) => step.name === 'security');
  const encrypt = (last?.options as SecurityOptions | undefined)?.encrypt;
  const password = encrypt?.password?.permission || encrypt?.password?.open;
  return password ? { password } : undefined;
}
