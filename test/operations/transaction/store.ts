import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { newId } from '../../../src/core/ids.js';
import { RememberedCredentials } from '../../../src/operations/documents/credentials.js';
import { DocumentService } from '../../../src/operations/documents/document-service.js';
import type { Session } from '../../../src/sessions/session.js';
import { activeVersion, type DocumentRecord } from '../../../src/storage/document-store.js';
import { FileDocumentStore } from '../../../src/storage/file-document-store.js';
import { buildPdf, documentObjects } from '../../helpers/hostile-pdf.js';

/**
 * A real document store in a fresh data dir, and independent views of what it holds: the stored
 * file's bytes (sha256), qpdf --check, the scratch area (tmp/). No server: the transaction and the
 * services are driven directly, with faulty fakes where an engine would be.
 */
export interface TestStore {
  dataDir: string;
  documents: DocumentService;
  credentials: RememberedCredentials;
  session: Session;
  upload(bytes: Buffer, fileName: string): Promise<DocumentRecord>;
  /** The stored content file of the document's active state. */
  storedFile(documentId: string): string;
  /** What is left under tmp/ (scratch directories, temp files). */
  leftovers(): string[];
  close(): void;
}

export async function openTestStore(): Promise<TestStore> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'quire-transaction-'));
  const store = new FileDocumentStore(dataDir);
  await store.open();
  const documents = new DocumentService(store, { limitsFor: () => ({ uploadLimit: 0, maxFiles: 0, diskSpaceLimit: 0 }), isLive: async () => true });
  const now = Date.now();
  const session: Session = {
    id: newId(),
    kind: 'user',
    userName: 'tester',
    roles: ['user'],
    providerId: '',
    subject: '',
    createdAt: now,
    expiresAt: now + 3_600_000,
    accessTokenId: newId(),
    refreshTokenId: '',
    lastAccess: now,
  } as Session;
  return {
    dataDir,
    documents,
    credentials: new RememberedCredentials(),
    session,
    upload: (bytes, fileName) => documents.upload(session, Readable.from([bytes]), { clientFileName: fileName, history: false }),
    storedFile: (documentId) => {
      const dir = path.join(dataDir, 'storage', session.id, documentId);
      const record = JSON.parse(readFileSync(path.join(dir, 'meta.json'), 'utf8')) as DocumentRecord;
      return path.join(dir, activeVersion(record).file);
    },
    leftovers: () => readdirSync(path.join(dataDir, 'tmp')),
    close: () => rmSync(dataDir, { recursive: true, force: true }),
  };
}

export function sha256(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** qpdf's own verdict on a file (exit 0: no errors; 3: warnings only). */
export function qpdfCheck(file: string, password?: string): string {
  return execFileSync('qpdf', [...(password ? [`--password=${password}`] : []), '--check', file], { encoding: 'utf8' });
}

/** A well-formed three-page PDF, normalised by qpdf. */
export function samplePdf(dir: string): Buffer {
  const raw = path.join(dir, 'raw.pdf');
  const out = path.join(dir, 'sample.pdf');
  writeFileSync(raw, buildPdf(documentObjects({ pages: 3 })));
  execFileSync('qpdf', [raw, out]);
  return readFileSync(out);
}

/** The sample, encrypted (AES-256) with a user and an owner password. */
export function protectedPdf(dir: string, user: string, owner: string): Buffer {
  const plain = path.join(dir, 'plain.pdf');
  const out = path.join(dir, 'protected.pdf');
  writeFileSync(plain, samplePdf(dir));
  execFileSync('qpdf', ['--encrypt', user, owner, '256', '--', plain, out]);
  return readFileSync(out);
}
