import { createReadStream } from 'node:fs';
import { PassThrough } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import Type from 'typebox';
import { QuireError } from '../../core/errors.js';
import { isLogDate, type LogFileInfo, type LogFiles } from '../../observability/log-files.js';
import { SupportPackage } from '../../operations/admin/support-package.js';
import { attachment } from '../replies.js';
import { LogQuery, SupportQuery } from '../schemas/admin-logs.js';
import { ref, WebserviceException } from '../schemas/shared.js';
import type { AdminRouteOptions } from './admin-options.js';

const tags = ['administration'];
const TEXT = 'text/plain; charset=UTF-8';

/** admin/server/log (GET with Range, HEAD) and admin/server/support (the support package ZIP). */
export const adminLogRoutes: FastifyPluginAsyncTypebox<AdminRouteOptions> = async (app, { admin, build }) => {
  const support = new SupportPackage({ config: admin.config, logFiles: admin.logFiles, build });

  app.get(
    '/admin/server/log',
    {
      config: { auth: 'admin' },
      // HEAD is its own route below: it answers the length without opening the file.
      exposeHeadRoute: false,
      schema: {
        tags,
        operationId: 'streamLog',
        summary: 'The server log of a day as text, honouring Range: bytes=from-to, from- and -suffix (206), else 200',
        querystring: LogQuery,
        produces: ['text/plain'],
        response: {
          200: Type.String({ format: 'binary', description: 'the whole log of the day' }),
          206: Type.String({ format: 'binary', description: 'the requested byte range; Content-Range says which' }),
          404: ref(WebserviceException),
          416: ref(WebserviceException),
        },
      },
    },
    async (request, reply) => {
      const log = await dayLog(admin.logFiles, request.query.date);
      const raw = (reply as FastifyReply)
        .header('content-type', TEXT)
        .header('content-disposition', attachment(`quire-${log.date}.log`, 'inline'))
        .header('accept-ranges', 'bytes')
        .header('cache-control', 'no-store');
      const range = parseRange(request.headers.range, log.size);
      if (range === 'unsatisfiable') {
        throw new QuireError('LOG_RANGE_NOT_SATISFIABLE', `The range "${request.headers.range}" lies outside the log of ${log.date} (${log.size} bytes).`, {
          headers: { 'content-range': `bytes */${log.size}` },
        });
      }
      // The log grows while it is read: the stream ends at the size measured now, which the headers announce.
      const { start, end } = range ?? { start: 0, end: log.size - 1 };
      if (range) raw.code(206).header('content-range', `bytes ${start}-${end}/${log.size}`);
      raw.header('content-length', String(end - start + 1));
      if (end < start) return raw.send('');
      return raw.send(createReadStream(log.path, { start, end }));
    },
  );

  app.head(
    '/admin/server/log',
    {
      config: { auth: 'admin' },
      schema: {
        tags,
        operationId: 'headLog',
        summary: "The size of a day's server log in Content-Length",
        querystring: LogQuery,
        response: { 200: Type.Null({ description: 'no body; Content-Length is the size of the log' }), 404: ref(WebserviceException) },
      },
    },
    async (request, reply) => {
      const log = await dayLog(admin.logFiles, request.query.date);
      return (reply as FastifyReply).header('content-type', TEXT).header('accept-ranges', 'bytes').header('cache-control', 'no-store').header('content-length', String(log.size)).send();
    },
  );

  app.get(
    '/admin/server/support',
    {
      config: { auth: 'admin' },
      schema: {
        tags,
        operationId: 'readSupportInformation',
        summary: 'A ZIP for support: logs/ of the days start..end, config/ (secrets redacted), init/ (environment)',
        querystring: SupportQuery,
        produces: ['application/octet-stream'],
        response: { 200: Type.String({ format: 'binary', description: 'the ZIP archive' }) },
      },
    },
    async (request, reply) => {
      const { group, start, end } = request.query;
      const archive = await support.prepare({ groups: group ?? [], start, end });
      const zip = new PassThrough();
      archive.write(zip).catch((error: unknown) => {
        request.log.error({ err: error }, 'streaming the support package failed');
        zip.destroy(error as Error);
      });
      return (reply as FastifyReply)
        .code(200)
        .header('content-type', 'application/octet-stream')
        .header('content-disposition', attachment(archive.fileName))
        .header('cache-control', 'no-store')
        .send(zip);
    },
  );
};

/** The log file of the `date` parameter (empty: today), or the error the client should get. */
async function dayLog(logFiles: LogFiles, date = ''): Promise<LogFileInfo> {
  if (date !== '' && !isLogDate(date)) throw new QuireError('PARAMETER', `Invalid parameter date: "${date}" is not a date written yyyy-MM-dd.`);
  const log = await logFiles.file(date === '' ? undefined : date);
  if (!log) throw new QuireError('LOG_NOT_FOUND', `There is no server log for ${date || 'today'}.`);
  return log;
}

/**
 * The byte range a Range header asks for in a file of `size` bytes (RFC 9110 §14): `bytes=a-b`,
 * `bytes=a-` and the suffix `bytes=-n`; the bare `a-b` of the reference's description is read
 * as bytes too. `undefined` means "send everything with 200", which RFC 9110 allows for headers
 * it does not understand or support (other units, several ranges) and which an empty file gets,
 * so that the clients' default `bytes=0-` still reads an empty log.
 */
function parseRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | undefined {
  if (header === undefined || size === 0) return undefined;
  const match = /^\s*(?:bytes\s*=\s*)?(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  const [, first = '', last = ''] = match;
  if (first === '') {
    const suffix = Number(last);
    return suffix === 0 ? 'unsatisfiable' : { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return undefined;
  if (start >= size) return 'unsatisfiable';
  return { start, end: last === '' ? size - 1 : Math.min(Number(last), size - 1) };
}
