import type { FastifyReply } from 'fastify';

/**
 * The webPDF answer to a call that produced or changed a document: 303 See Other to the document's
 * information, which the official clients follow (re-sending the Authorization header).
 */
export function seeDocumentInfo(reply: FastifyReply, restBase: string, documentId: string): FastifyReply {
  return reply
    .code(303)
    .header('location', `${restBase}/documents/${documentId}/info`)
    .header('cache-control', 'no-cache, no-store, no-transform, proxy-revalidate, max-age=0')
    .header('content-length', '0')
    .send();
}

/** File names longer than this (in code points) are shortened, keeping the extension: no file system takes more. */
const MAX_NAME_LENGTH = 255;
/** C0/C1 controls (CR and LF among them) and the bidi overrides that disguise names ("invoice\u202Efdp.exe"). */
const UNSAFE_CHARACTERS = /[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/**
 * RFC 6266 Content-Disposition with an ASCII fallback and the UTF-8 name (RFC 8187). The name is
 * display data from a client, a ZIP entry or the server: whatever it holds, it cannot break the
 * header (controls are dropped, quotes and backslashes never reach the quoted fallback) and it
 * cannot name a path (separators become "_").
 */
export function attachment(fileName: string, type: 'attachment' | 'inline' = 'attachment'): string {
  const name = downloadName(fileName);
  // RFC 6266 Appendix D: no "%" in the fallback (some agents decode it), and nothing but printable ASCII.
  const ascii = name.replace(/[^\x20-\x7e]/gu, '_').replace(/["\\%]/g, '_');
  // RFC 8187 attr-char excludes ' ( ) * which encodeURIComponent leaves alone.
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${type}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/** The last name a browser may save a download under: no controls, no path, not empty, not endless. */
function downloadName(fileName: string): string {
  let name = fileName.replace(UNSAFE_CHARACTERS, '').replace(/[/\\]/g, '_').trim();
  // "." and ".." (and names of dots only) would be read as directories by a careless client.
  if (/^\.*$/.test(name)) return 'download';
  const characters = Array.from(name); // by code point, so a surrogate pair is never split
  if (characters.length > MAX_NAME_LENGTH) {
    const dot = name.lastIndexOf('.');
    const extension = dot > 0 && name.length - dot <= 17 ? name.slice(dot) : '';
    name = characters.slice(0, MAX_NAME_LENGTH - extension.length).join('') + extension;
  }
  return name;
}
