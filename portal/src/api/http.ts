/**
 * The one way the portal calls the REST API: the session's bearer token on every call, the server's
 * error structure ({errorCode, errorMessage}) turned into an ApiError, and an expired or revoked token
 * (401) reported to the session so that the login page says so.
 */
import { session } from './session';

export const REST = '/webPDF/rest';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: number,
    message: string,
  ) {
    super(message);
  }
}

/** The error of a failed answer: the JSON error structure when there is one, else the status text. */
export async function errorOf(response: Response): Promise<ApiError> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { errorCode?: unknown; errorMessage?: unknown };
    if (typeof body.errorMessage === 'string') return new ApiError(response.status, Number(body.errorCode ?? 0), body.errorMessage);
  } catch {
    // not JSON: a proxy's page or an empty body
  }
  return new ApiError(response.status, 0, `${response.status} ${response.statusText}`.trim());
}

export interface CallOptions {
  method?: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** Send without the session's token (login, public endpoints). */
  anonymous?: boolean;
  signal?: AbortSignal;
}

/** A call that answers with a body; throws ApiError unless 2xx (a 303 is followed by the browser). */
export async function call(path: string, options: CallOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { ...options.headers };
  const token = options.anonymous ? undefined : await session.validToken();
  if (token && !headers.authorization) headers.authorization = `Bearer ${token}`;
  let body: BodyInit | undefined;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  const response = await fetch(path.startsWith('/') ? path : `${REST}/${path}`, { method: options.method ?? 'GET', headers, body, signal: options.signal, credentials: 'omit' });
  if (!response.ok) {
    const error = await errorOf(response);
    if (response.status === 401 && token && !options.anonymous) session.expired(error.message);
    throw error;
  }
  return response;
}

export async function json<T>(path: string, options: CallOptions = {}): Promise<T> {
  const response = await call(path, options);
  return (await response.json()) as T;
}

/** The answer's content as a blob (downloads, thumbnails: fetched with the token, shown as blob: URLs). */
export async function blob(path: string, options: CallOptions = {}): Promise<Blob> {
  return (await call(path, options)).blob();
}

/** Saves a blob under a file name through a temporary blob: link (no token in any URL). */
export function saveBlob(content: Blob, fileName: string): void {
  const url = URL.createObjectURL(content);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.rel = 'noopener';
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
