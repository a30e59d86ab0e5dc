/**
 * The baseline of the info benchmark: a bare Fastify server with one route at the same path as
 * `GET /documents/{documentId}/info`, answering the JSON the real server answered (env BODY) — no
 * authentication, no session, no storage, no hooks, no schema, no logger. Started by bench/run.ts as
 * a child process with the same node flags as `npm start`, pinned to the same CPU as the server was,
 * and loaded by the same autocannon settings: Quire's figure divided by this one is what Quire's own
 * request path costs on this machine (it does not depend on the machine's speed).
 *
 * Prints `listening <port>` on stdout once it accepts connections.
 */
import Fastify from 'fastify';

const body = JSON.parse(process.env.BODY ?? '{}') as unknown;
const restBase = process.env.REST_BASE ?? '/webPDF/rest';
const app = Fastify({ logger: false });
app.get(`${restBase}/documents/:documentId/info`, async () => body);
const address = await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
process.stdout.write(`listening ${new URL(address).port}\n`);
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void app.close().then(() => process.exit(0)));
