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

/** RFC 6266 Content-Disposition with an ASCII fallback and the UTF-8 name (RFC 8187). */
export function attachment(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  // RFC 8187 attr-char excludes ' ( ) * which encodeURIComponent leaves alone.
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
