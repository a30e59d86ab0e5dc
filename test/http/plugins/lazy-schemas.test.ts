import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { compileValidatorsOnFirstUse, serializersOnFirstUse } from '../../../src/http/plugins/lazy-schemas.js';

/** A Fastify instance configured as src/app.ts configures Quire's. */
function lazyApp(): FastifyInstance {
  return Fastify({
    ajv: { customOptions: { coerceTypes: 'array', useDefaults: true, removeAdditional: false, allErrors: true }, plugins: [compileValidatorsOnFirstUse] },
    schemaController: { compilersFactory: { buildSerializer: serializersOnFirstUse() } },
  });
}

describe('route schemas compiled on first use', () => {
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('validates, coerces, fills defaults, reports every error and serializes by the response schema as the eager compilers do', async () => {
    app = lazyApp();
    app.addSchema({ $id: 'Shared', type: 'object', properties: { kept: { type: 'string' } } });
    app.post(
      '/items/:id',
      {
        schema: {
          params: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
          body: {
            type: 'object',
            properties: { degrees: { type: 'integer', enum: [90, 180], default: 90 }, tags: { type: 'array', items: { type: 'string' } } },
            additionalProperties: false,
          },
          response: { 200: { type: 'object', properties: { id: { type: 'integer' }, degrees: { type: 'integer' }, tags: { type: 'array' }, shared: { $ref: 'Shared#' } } } },
        },
      },
      async (request) => ({ ...(request.params as object), ...(request.body as object), secret: 'not in the schema', shared: { kept: 'yes', dropped: 1 } }),
    );
    await app.ready();

    const ok = await app.inject({ method: 'POST', url: '/items/7', payload: { tags: 'one' } });
    expect(ok.statusCode).toBe(200);
    // Coerced id and single-item array, default filled, properties outside the response schema left out.
    expect(ok.json()).toEqual({ id: 7, degrees: 90, tags: ['one'], shared: { kept: 'yes' } });

    const bad = await app.inject({ method: 'POST', url: '/items/7', payload: { degrees: 45, extra: true } });
    expect(bad.statusCode).toBe(400);
    // allErrors: both faults are reported, from the errors of the function Fastify was given.
    expect(bad.json().message).toMatch(/degrees/);
    expect(bad.json().message).toMatch(/additional/);

    const badParam = await app.inject({ method: 'POST', url: '/items/x', payload: {} });
    expect(badParam.statusCode).toBe(400);
  });

  it('does not compile at start: a schema ajv cannot compile fails the first call of its route, not ready()', async () => {
    app = lazyApp();
    app.post('/broken', { schema: { body: { type: 'no-such-type' } } }, async () => ({ ok: true }));
    app.get('/fine', async () => ({ ok: true }));
    await expect(app.ready()).resolves.toBeDefined();
    expect((await app.inject({ method: 'GET', url: '/fine' })).statusCode).toBe(200);
    const broken = await app.inject({ method: 'POST', url: '/broken', payload: {} });
    expect(broken.statusCode).toBe(500);
  });

  it('serves two routes whose body schemas carry the same $id (ajv refuses to compile an id twice)', async () => {
    app = lazyApp();
    const schema = { $id: 'Twice', type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
    app.post('/a', { schema: { body: schema } }, async (request) => request.body);
    app.post('/b', { schema: { body: { ...schema } } }, async (request) => request.body);
    await app.ready();
    expect((await app.inject({ method: 'POST', url: '/a', payload: { n: '1' } })).json()).toEqual({ n: 1 });
    expect((await app.inject({ method: 'POST', url: '/b', payload: { n: '2' } })).json()).toEqual({ n: 2 });
    expect((await app.inject({ method: 'POST', url: '/b', payload: {} })).statusCode).toBe(400);
  });
});
