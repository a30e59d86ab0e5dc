/**
 * Uploads with progress: fetch cannot report upload progress, XMLHttpRequest can (upload.onprogress).
 * One request per file (the server takes one file part named filedata per upload).
 */
import { ApiError, REST } from './http';
import { session } from './session';
import type { DocumentFile } from './types';

export function uploadFile(file: File, onProgress: (fraction: number) => void, signal?: AbortSignal): Promise<DocumentFile> {
  return session.validToken().then(
    (token) =>
      new Promise<DocumentFile>((resolve, reject) => {
        const request = new XMLHttpRequest();
        request.open('POST', `${REST}/documents`);
        if (token) request.setRequestHeader('authorization', `Bearer ${token}`);
        request.responseType = 'text';
        request.upload.onprogress = (event) => {
          if (event.lengthComputable && event.total > 0) onProgress(event.loaded / event.total);
        };
        request.onload = () => {
          let body: { errorCode?: number; errorMessage?: string } & Partial<DocumentFile> = {};
          try {
            body = JSON.parse(request.responseText) as typeof body;
          } catch {
            // not JSON
          }
          if (request.status >= 200 && request.status < 300 && body.documentId) {
            onProgress(1);
            resolve(body as DocumentFile);
            return;
          }
          if (request.status === 401) session.expired(body.errorMessage);
          reject(new ApiError(request.status, body.errorCode ?? 0, body.errorMessage ?? `${request.status} ${request.statusText}`));
        };
        request.onerror = () => reject(new ApiError(0, 0, 'network error'));
        request.onabort = () => reject(new ApiError(0, 0, 'aborted'));
        signal?.addEventListener('abort', () => request.abort());
        const form = new FormData();
        form.append('filedata', file, file.name);
        request.send(form);
      }),
  );
}
