import { QuireError } from '../../core/errors.js';

/** The `{source, value, uri}` shape of the reference's file data members, as validated (`source` defaults to value). */
export interface FileData {
  source: string;
  value?: string;
  uri?: string;
}

const BASE64 = /^[A-Za-z0-9+/\s_-]*={0,2}\s*$/;

/**
 * The bytes of a file data member given inline (`source: value`, Base64). Fetching by `uri` is
 * refused clearly: the server does not fetch files on a client's behalf here.
 */
export function decodeFileData(data: FileData | undefined, field: string): Buffer {
  if (!data) throw new QuireError('PARAMETER', `Invalid parameter ${field}: required.`);
  if (data.source === 'uri') {
    throw new QuireError('OPTION_UNSUPPORTED', `${field}.source "uri" is not supported: send the file Base64-encoded in ${field}.value.`);
  }
  const value = data.value ?? '';
  if (value === '' || !BASE64.test(value)) throw new QuireError('PARAMETER', `Invalid parameter ${field}.value: Base64 content is required.`);
  return Buffer.from(value, 'base64');
}
