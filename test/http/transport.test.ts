/**
 * The HTTP transport under hostile clients (issue 11): requests Node's parser refuses, slow
 * clients, and answers that must reach a client still sending its body. Everything goes over raw
 * sockets (test/helpers/raw-http.ts), and answers are parsed there, not by the server's stack.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { multipartHead, MULTIPART_TAIL, STREAM_CONTENT_TYPE } from '../helpers/documents.js';
import { useTestServer } from '../helpers/fixture.js';
import { chunk, dribble, exchange, filler, type RawAnswer, type RawExchange } from '../helpers/raw-http.js';
import type { TestServer } from '../helpers/server.js';

const MB = 1024 * 1024;
const REST = '/webPDF/rest';

/** The exception structure, exactly: status, Content-Type, errorCode, a message, no stack trace. */
function expectException(outcome: RawExchange, status: number, errorCode: number): Record<string, unknown> {
  const answer = outcome.answer as RawAnswer;
  expect(answer, `no answer (${outcome.error?.code ?? 'closed'})`).toBeDefined();
  expect(answer.complete).toBe(true);
  expect(answer.status).toBe(status);
  // 415 is an HTTP error for the clients: RFC 9457 problem details carrying the same members (issue 13 item 2).
  const problem = status === 415;
  expect(answer.headers['content-type']).toBe(problem ? 'application/problem+json' : 'application/json');
  const body = JSON.parse(answer.body.toString('utf8')) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(problem ? ['detail', 'errorCode', 'errorMessage', 'stackTrace', 'status', 'title', 'type'] : ['errorCode', 'errorMessage', 'stackTrace']);
  expect(body.errorCode).toBe(errorCode);
  expect(typeof body.errorMessage).toBe('string');
  expect(body.errorMessage).not.toBe('');
  expect(body.stackTrace).toBe('');
  return body;
}

const portOf = (server: TestServer) => Number(new URL(server.url).port);

describe('requests the HTTP layer refuses', () => {
  const { server } = useTestServer({ session: false });
  let port: number;
  beforeAll(async () => {
    port = portOf(server);
  });

  const login = (headers: string, body = '') => `POST ${REST}/authentication/user/login HTTP/1.1\r\nHost: quire\r\n${headers}\r\n${body}`;

  const malformed: Array<[string, string]> = [
    ['Content-Length that is not a number', login('Content-Type: application/json\r\nContent-Length: abc\r\n', '{}')],
    ['negative Content-Length', login('Content-Type: application/json\r\nContent-Length: -5\r\n', '{}')],
    ['Content-Length past 2^64', login('Content-Type: application/json\r\nContent-Length: 99999999999999999999999\r\n', '{}')],
    ['two different Content-Lengths', login('Content-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n', '{}')],
    ['Content-Length together with Transfer-Encoding', login('Content-Type: application/json\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n', '0\r\n\r\n')],
    ['a chunk size that is not hexadecimal', login('Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n', 'zz\r\n{}\r\n0\r\n\r\n')],
    ['a chunk without its CR LF', login('Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n', '2\r\n{}XX0\r\n\r\n')],
    ['chunk extensions of 20 kB', login('Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n', `2;${'x'.repeat(20_000)}\r\n{}\r\n0\r\n\r\n`)],
    ['a garbage request line', 'GARBAGE / HTTP/9.9\r\n\r\n'],
    ['an unknown HTTP version', 'GET /webPDF/health HTTP/1.7\r\nHost: quire\r\n\r\n'],
    ['a space inside the request target', 'GET /webPDF/he alth HTTP/1.1\r\nHost: quire\r\n\r\n'],
    ['lines ended by LF alone', 'GET /webPDF/health HTTP/1.1\nHost: quire\n\n'],
    ['a header name with a space', 'GET /webPDF/health HTTP/1.1\r\nHost: quire\r\nBad Header: x\r\n\r\n'],
    ['a NUL byte in a header value', 'GET /webPDF/health HTTP/1.1\r\nHost: quire\r\nX-Value: a\u0000b\r\n\r\n'],
    ['an HTTP/2 preface on the HTTP/1.1 port', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'],
    ['HTTP/1.1 without Host', 'GET /webPDF/health HTTP/1.1\r\n\r\n'],
  ];

  it.each(malformed)('answers %s with 400 -83 and closes the connection', async (_name, request) => {
    const outcome = await exchange(port, request, [], { stopOnAnswer: false });
    const body = expectException(outcome, 400, -83);
    expect(String(body.errorMessage)).toMatch(/^Malformed HTTP request: /);
    // The server closed the connection (the exchange only ends on close, and the client did not close it).
    expect(outcome.answer!.headers.connection).toBe('close');
  });

  it('answers headers past the size limit with 431 -84', async () => {
    const outcome = await exchange(port, `GET /webPDF/health HTTP/1.1\r\nHost: quire\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`, [], { stopOnAnswer: false });
    expectException(outcome, 431, -84);
  });

  it('answers a request target past the size limit with 431 -84', async () => {
    const outcome = await exchange(port, `GET /webPDF/health?${'q'.repeat(20_000)} HTTP/1.1\r\nHost: quire\r\n\r\n`, [], { stopOnAnswer: false });
    expectException(outcome, 431, -84);
  });

  it('answers an Expect other than 100-continue with 417 -85', async () => {
    const outcome = await exchange(port, login('Expect: 200-ok\r\nContent-Type: application/json\r\nContent-Length: 2\r\n', '{}'), [], { stopOnAnswer: false });
    expectException(outcome, 417, -85);
  });

  it('still sends 100 Continue for an Expect list that names 100-continue', async () => {
    const outcome = await exchange(port, login('Expect: 100-continue, x-extra\r\nContent-Type: application/json\r\nContent-Length: 2\r\n'), [], { limitMs: 5000 });
    expect(outcome.answer?.status).toBe(100);
  });

  it('answers CONNECT with 404 -80: this is not a proxy', async () => {
    const outcome = await exchange(port, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n', [], { stopOnAnswer: false });
    expectException(outcome, 404, -80);
  });

  it('keeps serving after every one of them', async () => {
    const response = await fetch(`${server.url}/webPDF/health`);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

describe('multipart edge cases', () => {
  const { server, session } = useTestServer();
  let port: number;
  beforeAll(async () => {
    port = portOf(server);
  });

  const upload = (contentType: string, body: string) =>
    `POST ${REST}/documents HTTP/1.1\r\nHost: quire\r\nAuthorization: Bearer ${session.token}\r\nContent-Type: ${contentType}\r\n` + `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  const filePart = (boundary: string, close = true) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="filedata"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n${close ? `--${boundary}--\r\n` : ''}`;

  it('refuses a boundary of 300 characters with 400 -74 (busboy cannot search for it)', async () => {
    const boundary = 'b'.repeat(300);
    const body = expectException(await exchange(port, upload(`multipart/form-data; boundary=${boundary}`, filePart(boundary))), 400, -74);
    expect(String(body.errorMessage)).toMatch(/boundary/);
  });

  it('refuses a boundary of 71 characters, one past RFC 2046', async () => {
    const boundary = 'c'.repeat(71);
    expectException(await exchange(port, upload(`multipart/form-data; boundary=${boundary}`, filePart(boundary))), 400, -74);
  });

  it('refuses an empty boundary, plain and quoted', async () => {
    expectException(await exchange(port, upload('multipart/form-data; boundary=', filePart(''))), 400, -74);
    expectException(await exchange(port, upload('multipart/form-data; boundary=""', filePart(''))), 400, -74);
  });

  it('refuses a multipart type without a boundary', async () => {
    expectException(await exchange(port, upload('multipart/form-data', filePart('x'))), 400, -74);
  });

  it('accepts a quoted boundary with a space and one of exactly 70 characters', async () => {
    for (const [header, boundary] of [
      ['"a b"', 'a b'],
      ['d'.repeat(70), 'd'.repeat(70)],
    ] as const) {
      const outcome = await exchange(port, upload(`multipart/form-data; boundary=${header}`, filePart(boundary)));
      expect(outcome.answer?.status).toBe(303);
    }
  });

  it('refuses a body without its final boundary with 400 -74', async () => {
    expectException(await exchange(port, upload('multipart/form-data; boundary=zz', filePart('zz', false))), 400, -74);
  });

  it('refuses a body of 200 parts with 400 -74', async () => {
    const parts = Array.from({ length: 200 }, (_, i) => `--zz\r\nContent-Disposition: form-data; name="f${i}"\r\n\r\nv\r\n`).join('');
    expectException(await exchange(port, upload('multipart/form-data; boundary=zz', `${parts}--zz--\r\n`)), 400, -74);
  });

  it('answers a part header of 100 kB and a part with 200 header lines with a 4xx, never a 5xx', async () => {
    const huge = `--zz\r\nX-Big: ${'a'.repeat(100_000)}\r\nContent-Disposition: form-data; name="filedata"; filename="a.txt"\r\n\r\nhello\r\n--zz--\r\n`;
    const many = `--zz\r\n${Array.from({ length: 200 }, (_, i) => `X-H${i}: v\r\n`).join('')}Content-Disposition: form-data; name="filedata"; filename="a.txt"\r\n\r\nhello\r\n--zz--\r\n`;
    for (const body of [huge, many]) {
      const outcome = await exchange(port, upload('multipart/form-data; boundary=zz', body));
      // The parser ignores header bytes past its limits: the part then has no usable name.
      expectException(outcome, 400, -74);
    }
  });

  it('answers JSON nested 100,000 deep, and JSON that is not UTF-8, with 400', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const json = (body: Buffer | string) => `POST ${REST}/authentication/user/login HTTP/1.1\r\nHost: quire\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
    expectException(await exchange(port, json(deep), [Buffer.from(deep)]), 400, -14);
    const latin1 = Buffer.from('{"createRefreshToken":\xff\xfe}', 'latin1');
    expectException(await exchange(port, json(latin1), [latin1]), 400, -14);
  });
});

describe('slow clients (headersTimeout 1 s, requestTimeout 2 s, minUploadRate 1KB over 1 s)', () => {
  const { server, session } = useTestServer({
    env: {
      QUIRE_SERVER__HEADERS_TIMEOUT: '1',
      QUIRE_SERVER__REQUEST_TIMEOUT: '2',
      QUIRE_SERVER__MIN_UPLOAD_RATE: '1KB',
      QUIRE_SERVER__UPLOAD_RATE_WINDOW: '1',
    },
  });
  let port: number;
  beforeAll(async () => {
    port = portOf(server);
  });

  it('cuts off headers sent one byte at a time with 408 -86', async () => {
    const request = `GET /webPDF/health HTTP/1.1\r\nHost: quire\r\nX-Slow: ${'s'.repeat(200)}\r\n\r\n`;
    const outcome = await exchange(port, '', dribble(request, 1, 50), { stopOnAnswer: false });
    expectException(outcome, 408, -86);
    expect(outcome.sentAll).toBe(false);
  });

  it('cuts off a connection that never sends a request line with 408 -86', async () => {
    expectException(await exchange(port, '', [], { stopOnAnswer: false }), 408, -86);
  });

  it('cuts off an upload whose body arrives at 16 bytes/s with 408 -86, and keeps nothing', async () => {
    const content = Buffer.alloc(4096, 0x41);
    const body = Buffer.concat([multipartHead('slow.pdf'), content, MULTIPART_TAIL]);
    const head = `POST ${REST}/documents HTTP/1.1\r\nHost: quire\r\nAuthorization: Bearer ${session.token}\r\n` + `Content-Type: ${STREAM_CONTENT_TYPE}\r\nContent-Length: ${body.length}\r\n\r\n`;
    const outcome = await exchange(port, head, dribble(body, 4, 250), { stopOnAnswer: false });
    expectException(outcome, 408, -86);
    expect(outcome.sentAll).toBe(false);
    const listed = await fetch(`${server.rest}/documents/list`, { headers: session.headers });
    expect(await listed.json()).toEqual([]);
  });

  it('cuts off a JSON body that trickles past requestTimeout even above the minimum rate', async () => {
    const head = `POST ${REST}/authentication/user/login HTTP/1.1\r\nHost: quire\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
    async function* trickle(): AsyncGenerator<Buffer> {
      yield chunk('{');
      // 8 KB/s of JSON whitespace, well above 1 KB/s, for longer than the 2 s requestTimeout.
      for (let i = 0; i < 40; i++) {
        await new Promise((resolve) => setTimeout(resolve, 125));
        yield chunk(' '.repeat(1024));
      }
      yield chunk('}');
      yield Buffer.from('0\r\n\r\n');
    }
    const outcome = await exchange(port, head, trickle(), { stopOnAnswer: false });
    expectException(outcome, 408, -86);
    expect(outcome.sentAll).toBe(false);
  });

  it('lets a steady upload above the minimum rate run past requestTimeout', async () => {
    // 12 KB at 4 KB/s: three seconds, longer than requestTimeout, which uploads are exempt from.
    const content = Buffer.alloc(12 * 1024, 0x42);
    const body = Buffer.concat([multipartHead('steady.pdf'), content, MULTIPART_TAIL]);
    const head = `POST ${REST}/documents HTTP/1.1\r\nHost: quire\r\nAuthorization: Bearer ${session.token}\r\n` + `Content-Type: ${STREAM_CONTENT_TYPE}\r\nContent-Length: ${body.length}\r\n\r\n`;
    const outcome = await exchange(port, head, dribble(body, 1024, 250));
    expect(outcome.answer?.status).toBe(303);
    expect(outcome.sentAll).toBe(true);
  });
});

describe('early refusals reach a client that is still sending', () => {
  const { server, session } = useTestServer({ yaml: ['limits:', '  anonymous:', '    uploadLimit: 1MB', ''].join('\n') });
  let port: number;
  beforeAll(async () => {
    port = portOf(server);
  });

  const uploadHead = (headers: string, path = `${REST}/documents`) => `POST ${path} HTTP/1.1\r\nHost: quire\r\n${headers}Content-Type: ${STREAM_CONTENT_TYPE}\r\n`;
  const FIFTY = 50 * MB;

  const refusals: Array<[string, () => string, number, number]> = [
    ['413 for a declared Content-Length over the upload limit', () => `${uploadHead(`Authorization: Bearer ${session.token}\r\n`)}Content-Length: ${FIFTY}\r\n\r\n`, 413, -71],
    ['413 for a chunked upload that passes the limit while it streams', () => `${uploadHead(`Authorization: Bearer ${session.token}\r\n`)}Transfer-Encoding: chunked\r\n\r\n`, 413, -71],
    ['401 for an upload with an invalid token', () => `${uploadHead('Authorization: Bearer not-a-token\r\n')}Content-Length: ${FIFTY}\r\n\r\n`, 401, -62],
    ['404 for an upload to no endpoint', () => `${uploadHead(`Authorization: Bearer ${session.token}\r\n`, `${REST}/no/such/endpoint`)}Content-Length: ${FIFTY}\r\n\r\n`, 404, -80],
    ['415 for 50 MB of text to a JSON endpoint', () => `POST ${REST}/authentication/user/login HTTP/1.1\r\nHost: quire\r\nContent-Type: text/plain\r\nContent-Length: ${FIFTY}\r\n\r\n`, 415, -81],
  ];

  it.each(refusals)('a client streaming 50 MB reads the %s, without EPIPE or reset', async (name, head, status, errorCode) => {
    const chunked = name.includes('chunked');
    for (let attempt = 0; attempt < 3; attempt++) {
      const pieces = chunked
        ? (function* () {
            yield chunk(multipartHead('big.pdf'));
            for (const piece of filler(FIFTY)) yield chunk(piece);
          })()
        : filler(FIFTY);
      const outcome = await exchange(port, head(), pieces);
      expect(outcome.error, `attempt ${attempt}: ${outcome.error?.code}`).toBeUndefined();
      expectException(outcome, status, errorCode);
      expect(outcome.sentAll).toBe(false);
    }
  });
});

describe('draining has bounds (drainLimit 1MB, drainTimeout 1 s)', () => {
  const { server, session } = useTestServer({
    yaml: ['limits:', '  anonymous:', '    uploadLimit: 1MB', ''].join('\n'),
    env: { QUIRE_SERVER__DRAIN_LIMIT: '1MB', QUIRE_SERVER__DRAIN_TIMEOUT: '1' },
  });
  let port: number;
  beforeAll(async () => {
    port = portOf(server);
  });

  const head = () => `POST ${REST}/documents HTTP/1.1\r\nHost: quire\r\nAuthorization: Bearer ${session.token}\r\nContent-Type: ${STREAM_CONTENT_TYPE}\r\nContent-Length: ${200 * MB}\r\n\r\n`;

  it('cuts off a client that keeps sending past drainLimit after the answer', async () => {
    const outcome = await exchange(port, head(), filler(200 * MB), { stopOnAnswer: false });
    expectException(outcome, 413, -71);
    expect(outcome.sentAll).toBe(false);
    // The answer came first; then the connection was cut well before the 200 MB were through.
    expect(outcome.bytesWritten).toBeLessThan(100 * MB);
  });

  it('cuts off a client that keeps sending slowly past drainTimeout', async () => {
    async function* slow(): AsyncGenerator<Buffer> {
      for (let i = 0; i < 200; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        yield Buffer.alloc(1024, 0x44);
      }
    }
    const outcome = await exchange(port, head(), slow(), { stopOnAnswer: false });
    expectException(outcome, 413, -71);
    expect(outcome.sentAll).toBe(false);
  });

  it('reads the unread body of a keep-alive request to its end and serves the next request on the connection', async () => {
    const body = Buffer.alloc(100 * 1024, 0x45);
    const request = `GET /webPDF/health HTTP/1.1\r\nHost: quire\r\nContent-Length: ${body.length}\r\n\r\n`;
    const second = 'GET /webPDF/health HTTP/1.1\r\nHost: quire\r\nConnection: close\r\n\r\n';
    const outcome = await exchange(port, request, [body, Buffer.from(second)], { stopOnAnswer: false });
    expect(outcome.error).toBeUndefined();
    expect(outcome.sentAll).toBe(true);
    // Both answers arrived on the one connection (the test helper parses the first; count the status lines).
    expect(outcome.answer?.status).toBe(200);
    expect(outcome.raw.toString('latin1').match(/HTTP\/1\.1 200 /g)).toHaveLength(2);
  });

  it('cuts off a keep-alive request whose unread body goes on past drainLimit', async () => {
    const outcome = await exchange(port, `GET /webPDF/health HTTP/1.1\r\nHost: quire\r\nContent-Length: ${200 * MB}\r\n\r\n`, filler(200 * MB), {
      stopOnAnswer: false,
    });
    expect(outcome.answer?.status).toBe(200);
    expect(outcome.sentAll).toBe(false);
    expect(outcome.bytesWritten).toBeLessThan(100 * MB);
  });

  it('keeps serving', async () => {
    expect((await fetch(`${server.url}/webPDF/health`)).status).toBe(200);
  });
});
