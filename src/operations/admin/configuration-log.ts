import { rowsSection, same, type FieldRow } from './configuration-fields.js';
import type { WireScalar } from './configuration-wire.js';

/** webPDF's debug modes against pino levels: request payloads are only logged at trace. */
function debugMode(level: string): string {
  if (level === 'trace') return 'debugRequestPayload';
  return level === 'debug' ? 'debug' : 'none';
}

function levelOf(mode: WireScalar): string {
  if (mode === 'debugRequestPayload') return 'trace';
  return mode === 'debug' || mode === 'debugRequest' ? 'debug' : 'info';
}

/**
 * `Admin_LogFileConfiguration`: `debugMode` maps onto `log.level` (none → info, debug and
 * debugRequest → debug, debugRequestPayload → trace); `level` (a Quire addition) sets any pino level.
 * There is no log4j2 configuration: `log4j2Xml` is empty and `updateXml` is always false.
 */
const ROWS: FieldRow[] = [
  { field: 'debugMode', read: (c) => debugMode(c.log.level), writes: { key: 'log.level', value: levelOf } },
  { field: 'level', read: (c) => c.log.level, writes: same('log.level') },
  { field: 'updateXml', read: () => false },
];

export const logSection = rowsSection(ROWS, { log4j2Xml: '' });
