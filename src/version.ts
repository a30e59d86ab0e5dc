import { readFileSync } from 'node:fs';

export interface BuildInfo {
  version: string;
  buildTime: string;
  /** `Quire <major>.<minor>.<patch> (<build timestamp>)`, the OpenAPI info.version. */
  label: string;
}

/** The build written by scripts/write-build-info.mjs; when running from sources, the package version and the start time. */
export function buildInfo(): BuildInfo {
  let info: { version: string; buildTime: string };
  try {
    info = JSON.parse(readFileSync(new URL('./build-info.json', import.meta.url), 'utf8')) as typeof info;
  } catch {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    info = { version: pkg.version, buildTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') };
  }
  return { ...info, label: `Quire ${info.version} (${info.buildTime})` };
}
