// A tiny engine process for the WorkerPool tests, driven by `process-worker.ts`.
// Protocol: JSON lines. The child announces `{"type":"ready","pid":N}` once it is up; the parent sends
// `{"id":N,"type":"job","job":{...}}` or `{"id":N,"type":"ping"}`; the child answers
// `{"id":N,"ok":true,"result":...}` or `{"id":N,"ok":false,"error":"..."}`.
// Flags (argv): --fail-start (exit 3 before ready), --start-delay=MS, --ignore-pings,
// --linger-on-close=MS (stay alive this long after stdin closes).
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const flags = new Map(
  process.argv.slice(2).map((arg) => {
    const [name, value] = arg.replace(/^--/, '').split('=');
    return [name, value ?? 'true'];
  }),
);

if (flags.has('fail-start')) {
  process.stderr.write('child: refusing to start\n');
  process.exit(3);
}

/** Memory the `grow` op keeps alive. */
const hoard = [];

function send(message) {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

function handleJob(id, job) {
  switch (job.op) {
    case 'echo':
      send({ id, ok: true, result: { pid: process.pid, value: job.value } });
      return;
    case 'sleep':
      // Hangs (from the pool's point of view) for `ms`; answers if nobody killed it meanwhile.
      setTimeout(() => send({ id, ok: true, result: { pid: process.pid } }), job.ms);
      return;
    case 'exit':
      // Dies mid-job without answering (only in the child `onlyPid` names, when given).
      if (job.onlyPid !== undefined && job.onlyPid !== process.pid) {
        send({ id, ok: true, result: { pid: process.pid } });
        return;
      }
      if (job.signal) process.kill(process.pid, 'SIGKILL');
      else process.exit(1);
      return;
    case 'fail':
      send({ id, ok: false, error: job.message ?? 'job failed' });
      return;
    case 'grow': {
      // Buffer.alloc with a fill value touches every page, so the resident size really grows.
      hoard.push(Buffer.alloc(job.mb * 1024 * 1024, 1));
      send({ id, ok: true, result: { pid: process.pid, value: process.memoryUsage().rss } });
      return;
    }
    case 'grow-forever': {
      // Keeps touching `mb` more MiB every `ms` and never answers: a job that takes its worker to any size.
      setInterval(() => hoard.push(Buffer.alloc(job.mb * 1024 * 1024, 1)), job.ms);
      return;
    }
    case 'spawn-grandchild': {
      // Not detached: the grandchild stays in this process's group.
      const grandchild = spawn('sleep', ['1000'], { stdio: 'ignore' });
      grandchild.on('spawn', () => send({ id, ok: true, result: { pid: process.pid, grandchild: grandchild.pid } }));
      grandchild.on('error', (error) => send({ id, ok: false, error: String(error) }));
      return;
    }
    default:
      send({ id, ok: false, error: `unknown op ${JSON.stringify(job.op)}` });
  }
}

function start() {
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    if (!line.trim()) return;
    const message = JSON.parse(line);
    if (message.type === 'ping') {
      if (!flags.has('ignore-pings')) send({ id: message.id, ok: true, result: null });
    } else if (message.type === 'job') {
      handleJob(message.id, message.job);
    }
  });
  // Graceful close: the parent ends stdin.
  lines.on('close', () => {
    const linger = Number(flags.get('linger-on-close') ?? 0);
    setTimeout(() => process.exit(0), linger);
  });
  send({ type: 'ready', pid: process.pid });
}

const delay = Number(flags.get('start-delay') ?? 0);
if (delay > 0) setTimeout(start, delay);
else start();
