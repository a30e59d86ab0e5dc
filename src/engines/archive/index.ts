/**
 * The archive engine: ZIP listing, filtered and guarded extraction, single-member access, and
 * streaming ZIP creation. Other archive formats are refused by the caller.
 */
export { ArchiveError } from './errors.js';
export type { ArchiveErrorKind } from './errors.js';
export { compileFilter, matchesFilter, unsafeRegexReason, DEFAULT_FILTER_TIMEOUT_MS } from './filter.js';
export type { CompileFilterOptions, CompiledFilter, FileFilter, FileFilterRule, FileFilterRuleType } from './filter.js';
export { MAX_ENTRY_NAME_LENGTH, uniqueEntryNames, unsafeNameReason } from './names.js';
export { DEFAULT_ARCHIVE_LIMITS, DEFAULT_LIST_MAX_ENTRIES, extractEntries, listEntries, openEntry, resolveLimits } from './zip-read.js';
export type { ArchiveEntry, ArchiveLimits, ArchiveListing, ExtractOptions, ExtractResult, OpenedEntry } from './zip-read.js';
export { prepareZip, writeZip } from './zip-write.js';
export type { PreparedZip, WriteZipOptions, WriteZipResult, ZipSource } from './zip-write.js';
