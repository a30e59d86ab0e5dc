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
