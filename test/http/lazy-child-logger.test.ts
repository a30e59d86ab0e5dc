import { Writable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { lazyChildLoggerFactory } from '../../src/http/lazy-child-logger.js';

function memoryLogger(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const made = { count: 0 };
  const logger = pino({ level, onChild: () => (made.count += 1) }, stream) as unknown as FastifyBaseLogger;
  return { logger, lines, made, flush: () => new Promise<void>((resolve) => setImmediate(resolve)) };
}

describe('lazy request loggers', () => {
  it('make no pino child for entries below the level, and a bound one at the first entry that passes', async () => {
    const { logger, lines, made, flush } = memoryLogger('warn');
    const log = lazyChildLoggerFactory(logger, { reqId: 'r-1' }, {});
    log.info({ path: '/x' }, 'not written');
    log.debug('not written either');
    expect(made.count).toBe(0);
    expect((log as unknown as pino.Logger).isLevelEnabled('info')).toBe(false);

    log.warn({ path: '/y' }, 'written');
    log.error('also written');
    await flush();
    expect(made.count).toBe(1);
    expect(lines.map((l) => [l.msg, l.reqId])).toEqual([
      ['written', 'r-1'],
      ['also written', 'r-1'],
    ]);
  });

  it("follows the server logger's level when the administration changes it, and nests children with both bindings", async () => {
    const { logger, lines, flush } = memoryLogger('warn');
    const log = lazyChildLoggerFactory(logger, { reqId: 'r-2' }, {});
    logger.level = 'info';
    log.info('now written');
    log.child({ engine: 'qpdf' }).info('nested');
    await flush();
    expect(lines.map((l) => [l.msg, l.reqId, l.engine])).toEqual([
      ['now written', 'r-2', undefined],
      ['nested', 'r-2', 'qpdf'],
    ]);
  });
});
