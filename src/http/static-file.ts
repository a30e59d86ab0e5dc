import send from '@fastify/send';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * A file below `root` with @fastify/send (type, ETag, Last-Modified, 304, ranges): what
 * @fastify/static would do, without loading it and its glob at every start (~1.8 MB of the idle
 * RSS budget, BENCHMARKS.md) for the portal's and Swagger UI's files. Dot files are refused; a file that
 * is not there is the JSON 404 of every unknown path.
 */
export async function sendStatic(request: FastifyRequest, reply: FastifyReply, root: string, relative: string, cacheControl: string): Promise<FastifyReply> {
  const result = await send(request.raw, `/${relative.split('/').map(encodeURIComponent).join('/')}`, { root, dotfiles: 'deny', cacheControl: false, index: false });
  if (result.type !== 'file') {
    reply.callNotFound();
    return reply;
  }
  return reply.code(result.statusCode).headers(result.headers).header('cache-control', cacheControl).send(result.stream);
}
