import { readEml } from './read-eml.js';
import { readMsg } from './read-msg.js';
import type { MailLimits, MailMessage } from './types.js';

/** Reads a mail file of the given kind into the common MailMessage form. Errors are MailEngineErrors. */
export async function readMail(path: string, kind: 'eml' | 'msg', limits: MailLimits): Promise<MailMessage> {
  return kind === 'eml' ? readEml(path, limits) : readMsg(path, limits);
}
