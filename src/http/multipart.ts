import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { QuireError } from '../core/errors.js';

/** Bytes a multipart envelope may add around the file before a declared Content-Length alone proves a limit is exceeded. */
export const MULTIPART_ALLOWANCE = 64 * 1024;

/** The file size a request's Content-Length proves at least, or undefined when it proves nothing. */
export function declaredFileSize(request: FastifyRequest): number | undefined {
  const declared = Number(request.headers['content-length']);
  return Number.isFinite(declared) && declared > MULTIPART_ALLOWANCE ? declared - MULTIPART_ALLOWANCE : undefined;
}

/** RFC 2046 §5.1.1: a boundary is 1 to 70 characters. */
const MAX_BOUNDARY_LENGTH = 70;
const BOUNDARY_PARAMETER = /;\s*boundary\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/i;

/**
 * Refuses a boundary the multipart parser cannot take (busboy throws on one of more than ~250
 * bytes, and an empty one splits the body at every "--"). A missing boundary is left to the
 * parser, which reports it.
 */
function checkBoundary(contentType: string | undefined): void {
  const match = BOUNDARY_PARAMETER.exec(contentType ?? '');
  if (!match) return;
  const boundary = match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : (match[2] ?? '').trim();
  if (boundary.length === 0 || boundary.length > MAX_BOUNDARY_LENGTH) {
    throw new QuireError('UPLOAD_MALFORMED', `The multipart boundary must be 1 to ${MAX_BOUNDARY_LENGTH} characters (RFC 2046); this one has ${boundary.length}.`);
  }
}

/**
 * Reads a multipart/form-data body that carries exactly one file in the part `filedata` (webPDF's
 * upload shape), handing the file's stream to `store` as it arrives. A text part `name` names a file
 * whose part carries no filename. Any second file part is refused, and what `store` already kept is
 * undone with `undo`, since the client will learn nothing about it.
 */
export async function receiveSingleFile<T>(
  request: FastifyRequest,
  store: (file: Readable, clientFileName: string | undefined) => Promise<T>,
  undo: (result: T) => Promise<void>,
): Promise<{ result: T; clientFileName: string | undefined; nameField: string | undefined }> {
  checkBoundary(request.headers['content-type']);
  let result: { value: T } | undefined;
  let clientFileName: string | undefined;
  let nameField: string | undefined;
  const parts = request.parts({
    limits: { files: 1, fields: 16, parts: 32, fieldSize: 64 * 1024, fileSize: Infinity, headerPairs: 64 },
    isPartAFile: (fieldName: string, _type: string, fileName: string | undefined) => fieldName === 'filedata' || fileName !== undefined,
  } as Parameters<typeof request.parts>[0]);
  try {
    for await (const part of parts) {
      if (part.type === 'file') {
        if (part.fieldname !== 'filedata' || result) {
          part.file.resume();
          throw new QuireError('UPLOAD_MALFORMED', `Unexpected file part "${part.fieldname}"; send one file part named filedata.`);
        }
        clientFileName = part.filename || nameField;
        result = { value: await store(part.file, clientFileName) };
      } else if (part.fieldname === 'name' && typeof part.value === 'string') {
        nameField = part.value;
      }
    }
  } catch (error) {
    if (result) await undo(result.value).catch(() => undefined);
    throw error;
  }
  if (!result) throw new QuireError('UPLOAD_MALFORMED', 'The upload has no file part named filedata.');
  return { result: result.value, clientFileName, nameField };
}
