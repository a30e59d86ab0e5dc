/** The session's documents (REST documents/*): the calls the documents page and the services make. */
import { blob, call, json } from './http';
import { Store } from './store';
import type { DocumentFile, HistoryEntry } from './types';

export const documents = new Store<DocumentFile[]>([]);

export async function refreshDocuments(): Promise<DocumentFile[]> {
  const list = await json<DocumentFile[]>('documents/list');
  documents.set(list);
  return list;
}

/** Puts a changed or new document into the list without asking for the whole list again. */
export function remember(document: DocumentFile): void {
  const list = documents.get();
  const index = list.findIndex((other) => other.documentId === document.documentId);
  documents.set(index >= 0 ? list.map((other, at) => (at === index ? document : other)) : [...list, document]);
}

export const rename = (id: string, fileName: string) => json<DocumentFile>(`documents/${id}/update`, { method: 'POST', body: { fileName } });
export const remove = (id: string) => call(`documents/${id}`, { method: 'DELETE' });
export const download = (id: string) => blob(`documents/${id}`);
export const history = (id: string) => json<HistoryEntry[]>(`documents/${id}/history`);
export const activate = (id: string, historyId: number) => json<HistoryEntry>(`documents/${id}/history/${historyId}`, { method: 'PUT', body: { active: true } });
export const info = (id: string) => json<DocumentFile>(`documents/${id}/info`);
export const extract = (id: string) => json<DocumentFile[]>(`documents/${id}/extract`, { method: 'POST', body: {} });
export const compress = (documentIdList: string[], archiveFileName: string) =>
  json<DocumentFile>('documents/compress', { method: 'POST', body: { documentIdList, archiveFileName, storeArchive: true }, headers: { accept: 'application/json' } });

export function fullName(document: DocumentFile): string {
  return document.fileExtension ? `${document.fileName}.${document.fileExtension}` : document.fileName;
}

export function isPdf(document: DocumentFile): boolean {
  return document.mimeType === 'application/pdf' || document.fileTypeGroups.split(',').includes('pdf');
}

export function isArchive(document: DocumentFile): boolean {
  return document.mimeType === 'application/zip' || document.fileExtension.toLowerCase() === 'zip';
}
