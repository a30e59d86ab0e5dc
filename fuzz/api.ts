/** The REST calls the fuzzer makes around its cases: sessions, upload, document listing, cleanup. */
import { createHash } from 'node:crypto';
import { call, multipart, type Answer } from './http.js';

const ID = /documents\/([0-9a-f]{32})\/info/;

export async function login(rest: string, credentials?: { name: string; password: string }): Promise<string> {
  const answer = await call(`${rest}/authentication/user/login/`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      ...(credentials ? { authorization: `Basic ${Buffer.from(`${credentials.name}:${credentials.password}`).toString('base64')}` } : {}),
    },
    body: JSON.stringify({ createRefreshToken: false }),
    timeoutMs: 30_000,
  });
  const token = answer.status === 200 ? (JSON.parse(answer.body.toString('utf8')) as { token?: string }).token : undefined;
  if (!token) throw new Error(`login answered ${answer.status || answer.failureMessage}: ${answer.body.toString('utf8').slice(0, 300)}`);
  return token;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

export async function upload(rest: string, token: string, content: Buffer, fileName: string, timeoutMs: number): Promise<{ answer: Answer; documentId?: string }> {
  const { body, contentType } = multipart(content, fileName);
  const answer = await call(`${rest}/documents`, { method: 'POST', headers: { ...bearer(token), 'content-type': contentType }, body, timeoutMs });
  const location = answer.headers.location;
  const documentId = answer.status === 303 && typeof location === 'string' ? ID.exec(location)?.[1] : undefined;
  return { answer, ...(documentId ? { documentId } : {}) };
}

export function send(rest: string, token: string, method: string, relative: string, body: unknown, timeoutMs: number): Promise<Answer> {
  return call(`${rest}/${relative}`, {
    method,
    headers: { ...bearer(token), accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    timeoutMs,
  });
}

/** The ids of the session's documents; undefined when the list cannot be read. */
export async function documentIds(rest: string, token: string): Promise<string[] | undefined> {
  const answer = await send(rest, token, 'GET', 'documents/list', undefined, 15_000);
  if (answer.status !== 200) return undefined;
  try {
    return (JSON.parse(answer.body.toString('utf8')) as { documentId: string }[]).map((d) => d.documentId);
  } catch {
    return undefined;
  }
}

/** Deletes every document of the session (best effort: a document still locked by a hung call stays). */
export async function deleteAll(rest: string, token: string): Promise<number> {
  const ids = (await documentIds(rest, token)) ?? [];
  let left = 0;
  for (const id of ids) {
    const answer = await send(rest, token, 'DELETE', `documents/${id}`, undefined, 15_000);
    if (answer.status !== 200) left++;
  }
  return left;
}

export async function downloadSha256(rest: string, token: string, documentId: string): Promise<string | undefined> {
  const answer = await call(`${rest}/documents/${documentId}`, { headers: { ...bearer(token), accept: 'application/octet-stream' }, timeoutMs: 30_000, keepBody: true });
  if (answer.status !== 200) return undefined;
  return createHash('sha256').update(answer.body).digest('hex');
}

export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
