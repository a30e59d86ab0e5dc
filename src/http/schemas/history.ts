import Type from 'typebox';
import type { DocumentRecord, DocumentVersion } from '../../storage/document-store.js';
import { component } from './shared.js';

export const HistoryEntry = component(
  Type.Object(
    {
      id: Type.Integer({ format: 'int32', description: 'history id within the document; 1 is the upload' }),
      operation: Type.String({ description: 'what produced this state: "" for the upload, else the web service' }),
      fileName: Type.String({ description: 'file name of this state, with extension' }),
      dateTime: Type.String({ description: 'when the state was made (ISO 8601, UTC)' }),
      active: Type.Boolean({ description: "whether this state is the document's content; setting it true reverts to it" }),
    },
    { $id: 'Document_HistoryEntry' },
  ),
);

export const HistoryEntryUpdate = Type.Object(
  {
    operation: Type.Optional(Type.String()),
    active: Type.Optional(Type.Boolean()),
  },
  { description: 'Document_HistoryEntry as the clients send it; only operation and active are writable' },
);

export const HistoryParams = Type.Object({
  documentId: Type.String(),
  historyId: Type.Integer({ format: 'int32', minimum: 0 }),
});

export function toHistoryEntry(record: DocumentRecord, version: DocumentVersion) {
  return {
    id: version.id,
    operation: version.operation,
    fileName: version.fileExtension ? `${version.fileName}.${version.fileExtension}` : version.fileName,
    dateTime: new Date(version.createdAt).toISOString(),
    active: version.id === record.activeVersion,
  };
}
