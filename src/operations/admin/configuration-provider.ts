import { rowsSection, type FieldRow } from './configuration-fields.js';

/** The name of our stores: sessions, documents and the data store live in files of the data dir. */
const EMBEDDED = 'embedded';

/**
 * `Provider_Settings`: the storage providers behind sessions, documents and files. This version has
 * one of each, the embedded file-backed stores in the data dir; they cannot be exchanged.
 */
const ROWS: FieldRow[] = [
  { field: 'sessionStorage.name', read: () => EMBEDDED },
  { field: 'documentStorage.name', read: () => EMBEDDED },
  { field: 'fileStorage.name', read: () => EMBEDDED },
];

export const providerSection = rowsSection(ROWS);
