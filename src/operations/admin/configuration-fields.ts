import type { Config } from '../../config/load.js';
import type { ConfigFileEdit } from '../../config/write.js';
import type { StoredUser } from '../../auth/users.js';
import { getPath, setPath, type ConfigurationMode, type ConfigurationProblem, type WireObject, type WireScalar } from './configuration-wire.js';

/** What every envelope type works with. */
export interface SectionContext {
  /** The running configuration with its secrets: the source of values written back to the file. */
  config: Config;
  /** The same configuration redacted (src/config/redact.ts): every value a response shows comes from here. */
  shown: Config;
  /** The current local users with their hashes (for keeping unchanged passwords when the list is rewritten). */
  users: readonly StoredUser[];
}

/** A change of the configuration file, with the wire field it came from. */
export interface FieldEdit extends ConfigFileEdit {
  field: string;
}

/**
 * A file beside the configuration that a write stores (a key store the envelope carries): written
 * before the configuration file, so that the file a new setting names exists when it is read.
 */
export interface ConfigurationFile {
  field: string;
  /** The configuration key it belongs to, as a path (reported among the keys a restart applies). */
  key: string[];
  write(): Promise<void>;
}

export interface SectionChanges {
  edits: FieldEdit[];
  problems: ConfigurationProblem[];
  /** The wire field of a configuration key inside a list-valued edit (`users[2].name` → `configuration.user.2.username`). */
  fieldOf?(key: string): string | undefined;
  /** Local users whose sessions end once the change is live: removed, or with new roles or a new password. */
  endSessionsOf?: string[];
  /** Files a write stores besides the configuration file (key stores). */
  files?: ConfigurationFile[];
}

/** One `Admin_ConfigurationType`: how our configuration reads in its envelope, and what a posted envelope changes. */
export interface ConfigurationSection {
  /** The `configuration` member, plus members the reference adds to this envelope (key stores). */
  read(context: SectionContext): { configuration: WireObject; extras?: WireObject };
  /**
   * File edits and problems of a posted `configuration`; only fields whose value differs from the
   * current one count. `envelope` is the whole posted envelope (the key-store members beside `configuration`).
   */
  changes(posted: WireObject, context: SectionContext, mode: ConfigurationMode, envelope: WireObject): Promise<SectionChanges>;
}

/**
 * A wire field with a counterpart: its value read from our configuration and, when it can be
 * changed, the key it is written to. A field without `writes` shows a fixed property of this server.
 */
export interface FieldRow {
  /** Dotted path inside `configuration`; array elements by index (`connectors.connector.0.port`). */
  field: string;
  read(config: Config): WireScalar;
  writes?: { key: string; value(wire: WireScalar): unknown };
}

export function readRows(rows: readonly FieldRow[], config: Config, into: WireObject = {}): WireObject {
  for (const row of rows) setPath(into, row.field, row.read(config));
  return into;
}

/** A section that is its rows and nothing else; `fixed` are members shown as they are, never changed. */
export function rowsSection(rows: readonly FieldRow[], fixed: WireObject = {}): ConfigurationSection {
  return {
    read: ({ shown }) => ({ configuration: readRows(rows, shown, { ...fixed }) }),
    changes: async (posted, { shown }) => rowChanges(rows, posted, shown),
  };
}

/** Edits for the posted fields that differ from what the configuration shows now; problems for fixed fields changed. */
export function rowChanges(rows: readonly FieldRow[], posted: WireObject, shown: Config): SectionChanges {
  const edits: FieldEdit[] = [];
  const problems: ConfigurationProblem[] = [];
  for (const row of rows) {
    const value = getPath(posted, row.field);
    const current = row.read(shown);
    // Absent means unchanged: clients drop members they do not know, and may omit optional ones.
    if (value === undefined || value === current) continue;
    const field = `configuration.${row.field}`;
    if (typeof value !== typeof current) {
      problems.push({ field, key: row.writes?.key ?? '', message: `must be a ${typeof current}` });
    } else if (!row.writes) {
      problems.push({ field, key: '', message: `is fixed on this server (${JSON.stringify(current)})` });
    } else {
      edits.push({ field, key: row.writes.key.split('.'), value: row.writes.value(value as WireScalar) });
    }
  }
  return { edits, problems };
}

/** A writable row whose wire value is the configuration value itself. */
export function same(key: string): FieldRow['writes'] {
  return { key, value: (wire) => wire };
}
