import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Writable } from 'node:stream';
import type { Config } from '../../config/load.js';
import { redactConfig } from '../../config/redact.js';
import { QuireError } from '../../core/errors.js';
import { writeZip, type ZipSource } from '../../engines/archive/index.js';
import { isLogDate, utcDate, type LogFileInfo, type LogFiles } from '../../observability/log-files.js';
import { environmentReport, type BuildInfo } from './logs-support-environment.js';

/** webPDF `Admin_SupportEntryGroup`: what a support package contains. */
export const SUPPORT_GROUPS = ['config', 'init', 'logs'] as const;
export type SupportGroup = (typeof SUPPORT_GROUPS)[number];

export interface SupportPackageDeps {
  config: Config;
  logFiles: LogFiles;
  build: BuildInfo;
  /** When the server started; default: when this process started. */
  startedAt?: Date;
  now?: () => number;
}

export interface SupportRequest {
  /** Empty: the reference's default, `logs`. */
  groups: readonly SupportGroup[];
  /** yyyy-MM-dd; empty or absent: today (UTC). Only the `logs` group uses the range. */
  start?: string;
  end?: string;
}

/** A support package ready to be streamed: everything is checked and gathered, nothing sent yet. */
export interface SupportArchive {
  /** A dated file name for Content-Disposition, e.g. quire-support-2024-05-01T102030Z.zip. */
  fileName: string;
  /** Streams the ZIP into `destination` and removes the gathered files; call once. */
  write(destination: Writable): Promise<void>;
}

/**
 * The support package of `GET admin/server/support`: a ZIP with the day log files of a date range
 * (`logs/`), the effective configuration with every secret redacted (`config/configuration.json`)
 * and the start-up environment (`init/environment.json`), plus `manifest.json` saying what was
 * asked for and what was found.
 *
 * The members are gathered into a private folder under `<dataDir>/tmp` first: today's log keeps
 * growing while the ZIP is written, and the archive engine needs members whose size does not
 * change; copies are also safe from retention deleting a day's file mid-stream. The folder goes
 * when the ZIP has been written or has failed (and with the rest of `tmp` at the next start).
 */
export class SupportPackage {
  private readonly now: () => number;

  constructor(private readonly deps: SupportPackageDeps) {
    this.now = deps.now ?? Date.now;
  }

  async prepare(request: SupportRequest): Promise<SupportArchive> {
    const groups = new Set(request.groups.length > 0 ? request.groups : (['logs'] as const));
    const today = utcDate(this.now());
    const start = dateParameter('start', request.start, today);
    const end = dateParameter('end', request.end, today);
    if (start > end) throw new QuireError('PARAMETER', `Invalid parameter start: ${start} is after end ${end}.`);

    const workDir = path.join(this.deps.config.dataDir, 'tmp');
    await mkdir(workDir, { recursive: true });
    const folder = await mkdtemp(path.join(workDir, 'support-'));
    try {
      const sources: ZipSource[] = [];
      const logs = groups.has('logs') ? await this.deps.logFiles.files(start, end) : [];
      for (const log of logs) sources.push(await copyLog(folder, log));
      if (groups.has('config')) {
        sources.push(await writeJson(folder, 'config/configuration.json', redactConfig(this.deps.config)));
      }
      if (groups.has('init')) {
        const report = await environmentReport({ config: this.deps.config, build: this.deps.build, startedAt: this.startedAt(), now: this.now() });
        sources.push(await writeJson(folder, 'init/environment.json', report));
      }
      const manifest = {
        product: 'Quire',
        version: this.deps.build.label,
        createdAt: new Date(this.now()).toISOString(),
        groups: SUPPORT_GROUPS.filter((group) => groups.has(group)),
        ...(groups.has('logs') ? { logs: { start, end, days: logs.map((log) => log.date) } } : {}),
      };
      sources.unshift(await writeJson(folder, 'manifest.json', manifest));
      const stamp = new Date(this.now())
        .toISOString()
        .replace(/[-:]/g, '')
        .replace(/\.\d{3}/, '');
      return {
        fileName: `quire-support-${stamp}.zip`,
        write: async (destination) => {
          try {
            await writeZip(sources, destination);
          } finally {
            await rm(folder, { recursive: true, force: true });
          }
        },
      };
    } catch (error) {
      await rm(folder, { recursive: true, force: true });
      throw error;
    }
  }

  private startedAt(): Date {
    return this.deps.startedAt ?? new Date(Date.now() - process.uptime() * 1000);
  }
}

function dateParameter(name: string, value: string | undefined, fallback: string): string {
  if (value === undefined || value === '') return fallback;
  if (!isLogDate(value)) throw new QuireError('PARAMETER', `Invalid parameter ${name}: "${value}" is not a date written yyyy-MM-dd.`);
  return value;
}

async function copyLog(folder: string, log: LogFileInfo): Promise<ZipSource> {
  const name = `logs/${path.basename(log.path)}`;
  const file = path.join(folder, name);
  await mkdir(path.dirname(file), { recursive: true });
  await copyFile(log.path, file);
  return { name, file };
}

async function writeJson(folder: string, name: string, value: unknown): Promise<ZipSource> {
  const file = path.join(folder, name);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
  return { name, file };
}
