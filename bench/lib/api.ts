/** The few REST calls the benchmark makes outside its timed sections. */

export async function loginAnonymous(rest: string): Promise<string> {
  const response = await fetch(`${rest}/authentication/user/login/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ createRefreshToken: false }),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`anonymous login failed: ${response.status} ${text}`);
  const body = JSON.parse(text) as { token?: string };
  if (!body.token) throw new Error(`login answered no token: ${text}`);
  return body.token;
}

export interface DocumentInfo {
  documentId: string;
  fileSize: number;
  mimeType: string;
  [key: string]: unknown;
}

export async function documentInfo(rest: string, token: string, documentId: string): Promise<DocumentInfo> {
  const response = await fetch(`${rest}/documents/${documentId}/info`, { headers: { authorization: `Bearer ${token}` } });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`info of ${documentId} answered ${response.status}: ${text}`);
  return JSON.parse(text) as DocumentInfo;
}

export async function deleteDocument(rest: string, token: string, documentId: string): Promise<void> {
  const response = await fetch(`${rest}/documents/${documentId}`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`delete of ${documentId} answered ${response.status}`);
}
