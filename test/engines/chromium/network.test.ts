import dgram from 'node:dgram';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ChromiumEngine, type HtmlNetwork } from '../../../src/engines/chromium/index.js';
import { htmlJob, pdfText, tempDir, testServer, type TestServer } from './helpers.js';

const dir = tempDir();
const engine = new ChromiumEngine({ size: 1, tempDir: dir, healthIntervalMs: 0 });
let server: TestServer;
/** Requests to /slow are never answered. */
const held: { end: () => void }[] = [];

beforeAll(async () => {
  server = await testServer((request, response) => {
    if (request.url === '/redirect') {
      response.writeHead(302, { location: `http://localhost:${server.port}/target.png` }).end();
      return true;
    }
    if (request.url !== '/slow') return false;
    held.push(response);
    return true;
  });
  await engine.start();
});

afterAll(async () => {
  for (const response of held) response.end();
  await engine.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  server.requests.length = 0;
});

const NO_NETWORK: HtmlNetwork = { allowRemote: false, policy: {} };
const PUBLIC_ONLY: HtmlNetwork = { allowRemote: true, policy: {} };
const INTERNAL_TOO: HtmlNetwork = { allowRemote: true, policy: { allowInternal: true } };

describe('ChromiumEngine: network rules', () => {
  it('loads nothing by default and reports what it refused', async () => {
    const url = server.url('/x.png');
    const result = await engine.convert(htmlJob(dir, `<p>no net</p><img src="${url}"><link rel="stylesheet" href="${server.url('/s.css')}">`, { network: NO_NETWORK }));
    expect(server.requests).toEqual([]);
    expect(result.blocked.sort()).toEqual([server.url('/s.css'), url].sort());
    expect(result.failed).toEqual([]);
  });

  it('refuses internal hosts when remote resources are allowed under the default policy', async () => {
    const result = await engine.convert(htmlJob(dir, `<img src="${server.url('/x.png')}"><img src="http://localhost:${server.port}/y.png">`, { network: PUBLIC_ONLY }));
    expect(server.requests).toEqual([]);
    expect(result.blocked.sort()).toEqual([server.url('/x.png'), `http://localhost:${server.port}/y.png`].sort());
  });

  it('loads internal hosts with allowInternal', async () => {
    const result = await engine.convert(htmlJob(dir, `<img src="${server.url('/x.png')}">`, { network: INTERNAL_TOO }));
    expect(server.requests).toEqual(['/x.png']);
    expect(result).toEqual({ blocked: [], failed: [] });
  });

  it('loads hosts named in allowHosts, and only those', async () => {
    const network: HtmlNetwork = { allowRemote: true, policy: { allowHosts: ['127.0.0.1'] } };
    const result = await engine.convert(htmlJob(dir, `<img src="${server.url('/a.png')}"><img src="http://localhost:${server.port}/b.png">`, { network }));
    expect(server.requests).toEqual(['/a.png']);
    expect(result.blocked).toEqual([`http://localhost:${server.port}/b.png`]);
  });

  it('resolves relative references against the base URL', async () => {
    const network: HtmlNetwork = { ...INTERNAL_TOO, baseURL: server.url('/assets/') };
    await engine.convert(htmlJob(dir, '<html><head><title>t</title></head><body><img src="logo.png"></body></html>', { network }));
    expect(server.requests).toEqual(['/assets/logo.png']);
  });

  it('never loads file: URLs, whatever the network options', async () => {
    const html = '<p>FILES</p><iframe src="file:///etc/passwd"></iframe><img src="file:///etc/passwd"><object data="file:///etc/passwd"></object>';
    for (const network of [NO_NETWORK, INTERNAL_TOO, { ...INTERNAL_TOO, baseURL: 'file:///etc/' }]) {
      const job = htmlJob(dir, html, { network, javascript: true });
      await engine.convert(job);
      const text = pdfText(job.outputPath);
      expect(text).toContain('FILES');
      expect(text).not.toContain('root:');
    }
  });

  it('blocks other schemes requested by scripts', async () => {
    const html = `<script>fetch("${server.url('/fetched')}").catch(() => {}); fetch("ftp://127.0.0.1/x").catch(() => {});</script>`;
    const result = await engine.convert(htmlJob(dir, html, { network: PUBLIC_ONLY, javascript: true }));
    expect(server.requests).toEqual([]);
    expect(result.blocked).toContain(server.url('/fetched'));
  });

  it('keeps WebSockets, which request interception does not see, inside the rules', async () => {
    const html = `<script>new WebSocket("ws://127.0.0.1:${server.port}/ws"); new WebSocket("ws://localhost:${server.port}/ws2");</script><p>ws</p>`;
    await engine.convert(htmlJob(dir, html, { network: NO_NETWORK, javascript: true }));
    const publicOnly = await engine.convert(htmlJob(dir, html, { network: PUBLIC_ONLY, javascript: true }));
    expect(server.requests).toEqual([]);
    expect(publicOnly.blocked).toContain(`127.0.0.1:${server.port}`);
    // With internal hosts allowed the same socket goes through.
    await engine.convert(htmlJob(dir, html, { network: INTERNAL_TOO, javascript: true }));
    expect(server.requests.sort()).toEqual(['upgrade /ws', 'upgrade /ws2']);
  });

  it('judges every hop of a redirect', async () => {
    const network: HtmlNetwork = { allowRemote: true, policy: { allowHosts: ['127.0.0.1'] } };
    const result = await engine.convert(htmlJob(dir, `<img src="${server.url('/redirect')}">`, { network }));
    expect(server.requests).toEqual(['/redirect']);
    expect(result.blocked).toEqual([`http://localhost:${server.port}/target.png`]);
  });

  it('keeps WebRTC from sending UDP past the rules', async () => {
    const socket = dgram.createSocket('udp4');
    let packets = 0;
    socket.on('message', () => packets++);
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    try {
      const stun = `stun:127.0.0.1:${socket.address().port}`;
      const html = `<script>const pc = new RTCPeerConnection({ iceServers: [{ urls: "${stun}" }] }); pc.createDataChannel("x"); pc.createOffer().then((o) => pc.setLocalDescription(o));</script>`;
      await engine.convert(htmlJob(dir, html, { network: INTERNAL_TOO, javascript: true }));
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(packets).toBe(0);
    } finally {
      socket.close();
    }
  });

  it('reports resources that failed to load', async () => {
    const result = await engine.convert(htmlJob(dir, `<img src="${server.url('/missing')}"><img src="http://unknown-host.invalid/x.png">`, { network: INTERNAL_TOO }));
    expect(result.blocked).toEqual([]);
    expect(result.failed.sort()).toEqual(['http://unknown-host.invalid/x.png', server.url('/missing')].sort());
  });

  it('prints what has arrived when a resource hangs past the load wait', async () => {
    const job = htmlJob(dir, `<p>PATIENCE</p><img src="${server.url('/slow')}">`, { network: INTERNAL_TOO, loadTimeoutMs: 500 });
    const started = Date.now();
    const result = await engine.convert(job);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result.failed).toEqual([server.url('/slow')]);
    expect(pdfText(job.outputPath)).toContain('PATIENCE');
  });
});
