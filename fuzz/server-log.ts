/** What the server logged about a failure: the error behind a 500, read from its output. */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Violation } from './execute.js';
import type { ServerUnderTest } from './server.js';

/**
 * The errors the server logged (pino lines of level error or fatal) in some output: type, message
 * and the first frames of the stack, paths shortened to dist/.
 */
export function loggedErrors(output: string): string[] {
  const out: string[] = [];
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const entry = JSON.parse(line) as { level?: number; msg?: string; err?: { type?: string; message?: string; stack?: string } };
      if ((entry.level ?? 0) < 50) continue;
      const frames = (entry.err?.stack ?? '')
        .split('\n')
        .filter((l) => l.trim().startsWith('at '))
        .slice(0, 3)
        .map((l) => l.trim().replace(/file:\/\/\S*?\/dist\//, 'dist/'));
      out.push(`${entry.err?.type ?? 'Error'}: ${entry.err?.message ?? entry.msg ?? ''}${frames.length ? ` ${frames.join(' ')}` : ''}`.slice(0, 600));
    } catch {
      // not a log line
    }
  }
  return out;
}

/**
 * Adds the error the server logged to 5xx violations. Its log line comes just after the answer;
 * with two cases in flight the latest error line of the window is taken (rarely the other case's).
 */
export async function attachCauses(server: ServerUnderTest, mark: number, violations: Violation[]): Promise<void> {
  const needing = violations.filter((v) => v.kind === '5xx');
  if (!needing.length) return;
  await sleep(300);
  const errors = loggedErrors(server.outputSince(mark));
  if (errors.length) for (const v of needing) v.cause = errors[errors.length - 1];
}
