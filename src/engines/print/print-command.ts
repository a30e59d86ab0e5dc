import { readFile } from 'node:fs/promises';
import { run, RunError } from '../process/run.js';
import { PrintError } from './errors.js';

/**
 * Hands a PDF to the server's print command: the administrator's argv (`toolbox.printCommand`,
 * e.g. `["lp", "-d", "office"]`), run without a shell, the PDF on its standard input.
 *
 * What the job asks for reaches the command in two ways:
 * - placeholders in its arguments: `{jobName}` and `{copies}` are replaced (e.g.
 *   `["lp", "-t", "{jobName}", "-n", "{copies}"]`); a command without `{copies}` is run once per copy;
 * - its environment: QUIRE_PRINT_JOB_NAME, QUIRE_PRINT_COPIES, QUIRE_PRINT_PRINTER and, when a
 *   printer is named, PRINTER and LPDEST, from which CUPS `lp`/`lpr` take the destination unless the
 *   command names one itself (`-d`), which then wins: the administrator may pin the printer.
 */

export interface PrintJob {
  /** The configured argv; its first element is the program. */
  command: readonly string[];
  jobName: string;
  /** "" = the command's (or the system's) default printer. */
  printerName: string;
  copies: number;
}

/** Copies one call may ask for: a typo must not empty the paper trays. */
export const MAX_COPIES = 100;

export async function sendToPrinter(file: string, job: PrintJob, options: { timeoutMs: number }): Promise<void> {
  const [program, ...template] = job.command;
  if (!program) throw new PrintError('unsupported', 'no printer is configured on this server');
  if (!Number.isInteger(job.copies) || job.copies < 1 || job.copies > MAX_COPIES) {
    throw new PrintError('invalidOption', `copies must be a whole number from 1 to ${MAX_COPIES}`);
  }
  // Control characters have no place in a job title (some spoolers write it into their logs).
  const jobName = job.jobName.replace(/[\u0000-\u001f\u007f]/g, ' ');
  const printerName = job.printerName.replace(/[\u0000-\u001f\u007f]/g, '');
  const commandDoesCopies = template.some((arg) => arg.includes('{copies}'));
  const args = template.map((arg) => arg.replaceAll('{jobName}', jobName).replaceAll('{copies}', String(job.copies)));
  // The server's own settings (QUIRE_*: passwords, keys) are none of the print command's business.
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('QUIRE_')));
  const env: NodeJS.ProcessEnv = {
    ...inherited,
    QUIRE_PRINT_JOB_NAME: jobName,
    QUIRE_PRINT_COPIES: String(job.copies),
    QUIRE_PRINT_PRINTER: printerName,
    ...(printerName ? { PRINTER: printerName, LPDEST: printerName } : {}),
  };
  const pdf = await readFile(file);
  const runs = commandDoesCopies ? 1 : job.copies;
  const started = Date.now();
  for (let n = 0; n < runs; n++) {
    const timeoutMs = options.timeoutMs - (Date.now() - started);
    if (timeoutMs <= 0) throw new PrintError('timeout', `printing did not finish within ${options.timeoutMs} ms (${n} of ${runs} copies sent)`);
    let result;
    try {
      // tool 'print': capped at engines.print.maxMemory, whatever the program is.
      result = await run(program, args, { stdin: pdf, env, timeoutMs, maxOutputBytes: 64 * 1024, tool: 'print' });
    } catch (error) {
      if (error instanceof RunError && error.kind !== 'aborted') throw new PrintError('failed', `the print command cannot be started: ${error.message}`, { cause: error });
      throw error;
    }
    if (result.timedOut) throw new PrintError('timeout', `the print command did not finish within ${timeoutMs} ms`);
    if (result.exitCode !== 0) {
      const said = result.stderr.trim().split('\n').slice(-3).join(' ').slice(0, 500);
      throw new PrintError('failed', `the print command failed (exit ${result.exitCode ?? result.signal})${said ? `: ${said}` : ''}`);
    }
  }
}
