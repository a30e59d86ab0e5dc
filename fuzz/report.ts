/** The summary of a run as Markdown: totals, the status histogram per target, memory, slow calls, failures. */
import path from 'node:path';
import type { Harness } from './harness.js';
import type { Stats } from './stats.js';

const mb = (bytes: number) => `${(bytes / 1048576).toFixed(0)} MB`;
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export interface ReportContext {
  runSeed: number;
  durationMs: number;
  corpus: string;
  profile: Record<string, string>;
  command: string;
  resultsDir: string;
  repoRoot: string;
}

export function renderReport(stats: Stats, harness: Harness, context: ReportContext): string {
  const lines: string[] = [];
  const minutes = context.durationMs / 60_000;
  lines.push(`# Fuzz run, seed ${context.runSeed}`, '');
  lines.push(`\`${context.command}\` — ${minutes.toFixed(1)} min, server ${harness.options.root}`, '');
  lines.push('| | |', '|---|---|');
  lines.push(`| cases | ${stats.cases} (${(stats.cases / Math.max(1, context.durationMs / 1000)).toFixed(2)}/s) |`);
  lines.push(`| failing cases | ${stats.failures.length} (${stats.distinct.size} distinct) |`);
  for (const kind of ['crash', 'unresponsive', '5xx', 'hang', 'slow', 'connection', 'error-shape', 'document-changed', 'accepted', 'memory', 'tmp', 'stray-process', 'sentinel', 'health'] as const) {
    const count = stats.countOf(kind);
    if (count) lines.push(`| ${kind} | ${count} |`);
  }
  lines.push(`| server starts | ${harness.server.starts} |`);
  lines.push(`| orphan processes killed after crashes | ${harness.orphans.length}${harness.orphans.length ? ` (${[...new Set(harness.orphans.map((p) => p.comm))].join(', ')})` : ''} |`);
  lines.push(`| peak RSS server | ${mb(harness.monitor.peakServer)} (bound ${mb(harness.monitor.bounds.serverBytes)}) |`);
  lines.push(`| peak RSS child | ${mb(harness.monitor.peakChild.rssBytes)} (${harness.monitor.peakChild.comm || '-'}) |`);
  lines.push(`| corpus | ${context.corpus} |`);
  lines.push(
    `| profile | ${
      Object.entries(context.profile)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ') || 'stock configuration'
    } |`,
  );
  lines.push('');

  const statuses = [...new Set([...stats.histogram.values()].flatMap((row) => [...row.keys()]))].sort();
  lines.push('## Status histogram per target', '');
  lines.push(`| target | ${statuses.join(' | ')} |`, `|---|${statuses.map(() => '---:').join('|')}|`);
  for (const target of [...stats.histogram.keys()].sort()) {
    const row = stats.histogram.get(target)!;
    lines.push(`| ${target} | ${statuses.map((s) => row.get(s) ?? '').join(' | ')} |`);
  }
  lines.push('');

  lines.push('## Peak RSS per child command', '', '| command | peak RSS | bound |', '|---|---:|---:|');
  const bounds = harness.monitor.bounds;
  for (const [comm, bytes] of [...harness.monitor.peakByComm.entries()].sort((a, b) => b[1] - a[1])) {
    lines.push(`| ${comm} | ${mb(bytes)} | ${mb(bounds.childBytesByComm?.[comm] ?? bounds.childBytes)} |`);
  }
  lines.push('');

  lines.push('## Slowest calls', '', '| case | target | status | ms | limit ms |', '|---:|---|---|---:|---:|');
  for (const s of stats.slowest) lines.push(`| ${s.caseIndex} | ${s.target} | ${s.failure ?? s.status} | ${s.ms} | ${s.limitMs} |`);
  lines.push('');

  lines.push('## Distinct failures', '');
  if (stats.distinct.size === 0) lines.push('None.');
  else {
    lines.push('| kind | target | count | status / code | what broke | reproducer |', '|---|---|---:|---|---|---|');
    for (const d of [...stats.distinct.values()].sort((a, b) => a.signature.localeCompare(b.signature))) {
      const v = d.first.violation;
      const what = (v.cause ? `${v.cause} — ` : v.message ? `${v.message} — ` : '') + v.detail;
      const reproducer = d.reproducer ? `${path.relative(context.repoRoot, d.reproducer)} (${d.minimisedSize} B${d.originalSize !== d.minimisedSize ? ` from ${d.originalSize}` : ''})` : '-';
      lines.push(`| ${v.kind} | ${cell(d.first.target)} | ${d.count} | ${v.status ?? ''} ${v.errorCode ?? ''} | ${cell(what.slice(0, 300))} | ${cell(reproducer)} |`);
    }
  }
  lines.push('');
  return lines.join('\n');
}
