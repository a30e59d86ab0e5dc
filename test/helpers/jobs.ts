import type { DocumentFile, ErrorBody } from './documents.js';

/** The job resource as the tests read it off the wire (docs/jobs.md), typed independently of src. */
export interface Job {
  jobId: string;
  state: 'queued' | 'running' | 'succeeded' | 'failed';
  progress: number;
  webservice: string;
  documentId?: string;
  createdAt: string;
  startedAt?: string;
  finishedAt?: string;
  attempts: number;
  result?: DocumentFile;
  error?: ErrorBody;
}
