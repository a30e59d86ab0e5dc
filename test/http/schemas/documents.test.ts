import { describe, expect, it } from 'vitest';
import { NO_ERROR } from '../../../src/core/errors.js';
import { documentFileText, toDocumentFile } from '../../../src/http/schemas/documents.js';
import type { DocumentDescription } from '../../../src/operations/documents/describe.js';
import type { DocumentRecord } from '../../../src/storage/document-store.js';

const record: DocumentRecord = {
  id: 'a1',
  sessionId: 's1',
  fileName: 'report "Q3" ✓',
  parentId: '',
  createdAt: 1_700_000_000_000,
  lastModified: 1_700_000_100_000,
  history: false,
  activeVersion: 0,
  versions: [
    { id: 0, operation: '', fileName: 'report', fileExtension: 'pdf', fileTypeId: 1, mimeType: 'application/pdf', fileTypeGroups: ['pdf'], size: 218, createdAt: 1_700_000_000_000, file: 'c1' },
  ],
};

const password = { isOpenSet: true, isPermissionSet: false, isCertificateSet: false, recipients: [] };
const metadata = { metadataType: 'pdf', information: { pages: 3, description: { title: 'Ünïcode\n"quoted"', author: ['a', 'b'] } } };

describe('documentFileText', () => {
  const cases: Array<[string, DocumentDescription | undefined, boolean]> = [
    ['no description', undefined, false],
    ['an error and no metadata', { error: { errorCode: -5009, errorMessage: 'password required', stackTrace: '' } }, true],
    ['password and metadata', { error: NO_ERROR, password, metadata }, false],
  ];
  it.each(cases)('is byte for byte JSON.stringify(toDocumentFile(...)): %s', (_name, description, locked) => {
    expect(documentFileText(record, locked, description)).toBe(JSON.stringify(toDocumentFile(record, locked, description)));
  });

  it('serializes the metadata once per metadata object: a later change of that object is not seen, a new object is', () => {
    const own = { metadataType: 'pdf', pages: 1 };
    const first = documentFileText(record, false, { error: NO_ERROR, metadata: own });
    own.pages = 2;
    expect(documentFileText(record, false, { error: NO_ERROR, metadata: own })).toBe(first);
    expect(JSON.parse(documentFileText(record, false, { error: NO_ERROR, metadata: { ...own } })).metadata.pages).toBe(2);
  });

  it('makes a new text when the record is replaced, the lock changes or the description has other objects', () => {
    const description: DocumentDescription = { error: NO_ERROR, password, metadata };
    const first = documentFileText(record, false, description);
    expect(documentFileText(record, false, { ...description })).toBe(first);
    const renamed = { ...record, fileName: 'renamed' };
    expect(JSON.parse(documentFileText(renamed, false, description)).fileName).toBe('renamed');
    expect(JSON.parse(documentFileText(record, true, description)).isFileLocked).toBe(true);
    const error = { errorCode: -5009, errorMessage: 'password required', stackTrace: '' };
    expect(JSON.parse(documentFileText(record, true, { ...description, error })).error).toEqual(error);
    expect(documentFileText(record, false, description)).toBe(first);
  });
});
