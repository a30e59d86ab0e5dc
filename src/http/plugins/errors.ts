import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Errors, QuireError, type ErrorDefinition } from '../../core/errors.js';
import { errorAnswer } from './error-answer.js';

/**
 * Turns every failure into the webPDF exception structure with `Content-Type: application/json`
 * exactly (the official clients compare the whole header), or, for the few statuses the clients must
 * see as HTTP errors (415), into an RFC 9457 problem that carries the same members (error-answer.ts).
 * Expected failures carry their catalogue entry; framework errors are mapped onto one; anything else
 * is a 500 whose cause goes to the log only.
 */
export function registerErrorHandling(app: FastifyInstance, options: { debug: boolean }): void {
  app.setErrorHandler((error: FastifyError | QuireError | Error, request, reply) => {
    const { definition, message, headers } = classify(error);
    // Redis away (cluster mode) is a passing state the connection already logged once ("Redis not
    // reachable"): each call it refuses meanwhile is a warning without a stack, not a server fault.
    if (definition.errorCode === Errors.STORE_UNAVAILABLE.errorCode) request.log.warn({ errorCode: definition.errorCode, reason: message }, 'request refused: Redis unavailable');
    else if (definition.status >= 500) request.log.error({ err: error }, 'request failed');
    else request.log.info({ errorCode: definition.errorCode, reason: message }, 'request refused');
    return sendError(request, reply, definition, message, options.debug ? (error.stack ?? '') : '', headers);
  });

  app.setNotFoundHandler((request, reply) => sendError(request, reply, Errors.ROUTE_NOT_FOUND, `No endpoint ${request.method} ${request.url.split('?')[0]}.`, '', {}));

  // JSON is UTF-8 by definition (RFC 8259) and the clients want the bare media type: drop the charset Fastify adds
  // (to problem+json as well: the same JSON, and RFC 9457 defines no parameter for it).
  // Callback-style, as the other per-request hooks here: an async hook costs a promise on every response.
  app.addHook('onSend', (_request, reply, payload, done) => {
    const type = reply.getHeader('content-type');
    if (typeof type === 'string') {
      if (type.startsWith('application/json;')) reply.header('content-type', 'application/json');
      else if (type.startsWith('application/problem+json;')) reply.header('content-type', 'application/problem+json');
    }
    done(null, payload);
  });
}

function sendError(request: FastifyRequest, reply: FastifyReply, definition: ErrorDefinition, message: string, stackTrace: string, headers: Readonly<Record<string, string>>): FastifyReply {
  const { contentType, body } = errorAnswer(definition, message, stackTrace);
  request.quireErrorCode = definition.errorCode;
  // A request whose body was not read (a refused upload) ends its connection, after a bounded drain
  // that lets a client still sending read this answer (body-drain.ts).
  if (!request.raw.complete && request.raw.readable) reply.header('connection', 'close');
  return reply.code(definition.status).headers(headers).type(contentType).send(body);
}

function classify(error: FastifyError | QuireError | Error): {
  definition: ErrorDefinition;
  message: string;
  headers: Readonly<Record<string, string>>;
} {
  if (error instanceof QuireError) return { definition: error.definition, message: error.message, headers: error.headers };
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) {
    return { definition: Errors.PARAMETER, message: validationMessage(fastifyError), headers: {} };
  }
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { definition: Errors.UNSUPPORTED_MEDIA_TYPE, message: 'This endpoint does not accept a body of this content type.', headers: {} };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { definition: Errors.BODY_TOO_LARGE, message: 'The request body is larger than the server accepts.', headers: {} };
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { definition: Errors.PARAMETER, message: `The body is not valid JSON: ${fastifyError.message}`, headers: {} };
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return { definition: Errors.UPLOAD_MALFORMED, message: 'The upload must be a multipart/form-data body with a file part named filedata.', headers: {} };
    case 'FST_FILES_LIMIT':
      return { definition: Errors.UPLOAD_MALFORMED, message: 'The upload carries more than one file; send one file part named filedata per upload.', headers: {} };
    case 'FST_PARTS_LIMIT':
    case 'FST_FIELDS_LIMIT':
    case 'FST_PROTO_VIOLATION':
    case 'FST_INVALID_JSON_FIELD_ERROR':
    case 'FST_MP_PREMATURE_CLOSE':
      return { definition: Errors.UPLOAD_MALFORMED, message: `The multipart body is not acceptable: ${fastifyError.message}.`, headers: {} };
    default:
      break;
  }
  if (error instanceof SyntaxError && fastifyError.statusCode === 400) {
    return { definition: Errors.PARAMETER, message: `The body is not valid JSON: ${error.message}`, headers: {} };
  }
  // busboy's parse errors carry no status; they all mean the client sent a broken multipart body.
  // ("The needle ..." is its boundary search refusing a boundary it cannot search for.)
  if (/^Multipart: |Unexpected end of (form|multipart data)|Malformed part header|Part terminated early|^The needle /i.test(error.message)) {
    return { definition: Errors.UPLOAD_MALFORMED, message: `The upload is not valid multipart/form-data: ${error.message}`, headers: {} };
  }
  const status = fastifyError.statusCode;
  if (status !== undefined && status >= 400 && status < 500) {
    return { definition: { ...Errors.PARAMETER, status }, message: error.message, headers: {} };
  }
  return { definition: Errors.INTERNAL, message: 'The server failed to process the request; the cause is in the server log.', headers: {} };
}

function validationMessage(error: FastifyError): string {
  const part = error.validationContext ?? 'request';
  const problems = (error.validation ?? []).slice(0, 5).map((issue) => {
    const params = issue.params as { missingProperty?: string; allowedValues?: unknown[] } | undefined;
    const pointer = issue.instancePath.replace(/^\//, '').replace(/\//g, '.');
    const field = [part, pointer, params?.missingProperty].filter(Boolean).join('.');
    const allowed = params?.allowedValues ? ` (allowed: ${params.allowedValues.join(', ')})` : '';
    return `${field}: ${issue.message ?? 'is invalid'}${allowed}`;
  });
  return `Invalid parameter ${problems.join('; ')}`;
}
