/** The JSON the portal reads, as the OpenAPI document describes it (only the members it shows). */
export interface ErrorStructure {
  errorCode: number;
  errorMessage: string;
}

export interface PdfInformation {
  pages?: number;
  version?: string;
  encrypted?: boolean;
  signatures?: number;
  pdfa?: { part: string; conformance: string };
  description?: { title?: string; author?: string[]; subject?: string; creator?: string; producer?: string };
}

export interface DocumentFile {
  documentId: string;
  parentDocumentId: string;
  fileSize: number;
  mimeType: string;
  fileName: string;
  fileExtension: string;
  fileTypeGroups: string;
  fileLastModified: string;
  historyId: number;
  isFileLocked: boolean;
  error: ErrorStructure;
  password?: { isOpenSet: boolean; isPermissionSet: boolean; isCertificateSet: boolean };
  metadata?: { metadataType: string; information?: PdfInformation; width?: number; height?: number; [key: string]: unknown };
}

export interface HistoryEntry {
  id: number;
  operation: string;
  fileName: string;
  dateTime: string;
  active: boolean;
}

export interface Job {
  jobId: string;
  state: 'queued' | 'running' | 'succeeded' | 'failed';
  progress: number;
  webservice: string;
  documentId?: string;
  result?: DocumentFile;
  error?: ErrorStructure;
}
