import Type, { type Static } from 'typebox';
import { NO_ERROR } from '../../core/errors.js';
import type { DocumentDescription } from '../../operations/documents/describe.js';
import { activeVersion } from '../../operations/documents/versions.js';
import type { DocumentRecord } from '../../storage/document-store.js';
import { component, ref, WebserviceException } from './shared.js';

export const DocumentPassword = component(
  Type.Object(
    {
      isOpenSet: Type.Boolean({ description: 'a password is needed to open the PDF' }),
      isPermissionSet: Type.Boolean({ description: 'an owner password restricts permissions' }),
      isCertificateSet: Type.Boolean({ description: 'the PDF is encrypted for certificates' }),
      recipients: Type.Array(Type.Object({ issuer: Type.String(), serialNumber: Type.String() })),
    },
    { $id: 'Document_Password' },
  ),
);

export const DocumentFile = component(
  Type.Object(
    {
      documentId: Type.String(),
      parentDocumentId: Type.String({ description: 'empty when the document has no parent' }),
      fileSize: Type.Integer({ format: 'int64' }),
      mimeType: Type.String({ description: 'media type detected from the content' }),
      fileName: Type.String({ description: 'file name without extension' }),
      fileExtension: Type.String({ description: 'extension without dot' }),
      fileTypeId: Type.Integer({ format: 'int32', description: 'stable numeric id of the detected type (docs/file-types.md)' }),
      fileTypeGroups: Type.String({ description: 'comma separated type groups' }),
      fileLastModified: Type.String({ description: 'HTTP date of the last content change' }),
      filePath: Type.String({ description: 'always empty: storage paths are not disclosed' }),
      historyId: Type.Integer({ format: 'int32', description: 'active history entry; 0 without history mode' }),
      isFileLocked: Type.Boolean(),
      metadata: Type.Optional(
        Type.Object(
          { metadataType: Type.Enum(['pdf', 'image', 'archive']) },
          { additionalProperties: true, description: 'Document_MetadataPdf / _MetadataImage / _MetadataArchive; absent when unknown (yet)' },
        ),
      ),
      password: Type.Optional(ref(DocumentPassword)),
      error: ref(WebserviceException),
    },
    { $id: 'Document_File', description: 'A document of the session storage.' },
  ),
);
export type DocumentFileBody = Static<typeof DocumentFile>;

export function toDocumentFile(record: DocumentRecord, locked = false, description?: DocumentDescription): DocumentFileBody {
  const version = activeVersion(record);
  const file: DocumentFileBody = {
    documentId: record.id,
    parentDocumentId: record.parentId,
    fileSize: version.size,
    mimeType: version.mimeType,
    fileName: record.fileName,
    fileExtension: version.fileExtension,
    fileTypeId: version.fileTypeId,
    fileTypeGroups: version.fileTypeGroups.join(','),
    fileLastModified: new Date(record.lastModified).toUTCString(),
    filePath: '',
    historyId: record.activeVersion,
    isFileLocked: locked,
    error: description?.error ?? NO_ERROR,
  };
  if (description?.password) file.password = description.password;
  if (description?.metadata) file.metadata = description.metadata as DocumentFileBody['metadata'];
  return file;
}

/** The JSON text of a metadata object, made once: its object is cached per content file and not changed. */
const metadataText = new WeakMap<object, string>();

/** The last answer made for a stored record, and the objects it was made of. */
interface Rendered {
  locked: boolean;
  description: Partial<DocumentDescription>;
  text: string;
}
const lastRendered = new WeakMap<DocumentRecord, Rendered>();

/**
 * `toDocumentFile` as JSON text, byte for byte what `JSON.stringify` makes of it, for `GET info`,
 * the most frequent call, where stringifying was ~15 % of its CPU. A stored record is replaced,
 * never changed, when its document changes, and the describer answers with the same objects while
 * nothing changed: an answer made of the same record and objects is the last text. Otherwise the
 * metadata (the last member, ~90 % of the text for a PDF) is serialized once per metadata object.
 */
export function documentFileText(record: DocumentRecord, locked = false, description?: DocumentDescription): string {
  const { error, password, metadata } = description ?? {};
  const last = lastRendered.get(record);
  if (last && last.locked === locked && last.description.error === error && last.description.password === password && last.description.metadata === metadata) {
    return last.text;
  }
  const file = toDocumentFile(record, locked, description === undefined ? undefined : { ...description, metadata: undefined });
  let text = JSON.stringify(file);
  if (metadata) {
    let metadataJson = metadataText.get(metadata);
    if (metadataJson === undefined) {
      metadataJson = JSON.stringify(metadata);
      metadataText.set(metadata, metadataJson);
    }
    text = `${text.slice(0, -1)},"metadata":${metadataJson}}`;
  }
  lastRendered.set(record, { locked, description: { error, password, metadata }, text });
  return text;
}

/** Both client shapes: TS sends Document_FileUpdate {fileName, parentDocumentId}, Java the whole Document_File. */
export const DocumentRename = Type.Object(
  { fileName: Type.String({ minLength: 1, maxLength: 1024, description: 'the new name, without extension' }) },
  { description: 'Document_FileUpdate; other members (parentDocumentId, or a whole Document_File) are ignored' },
);

export const UploadQuery = Type.Object({
  history: Type.Boolean({ default: false, description: "keep a history of the document's states" }),
});

/** What the upload body looks like, for the OpenAPI document only (the multipart stream is parsed by hand). */
export const UploadBodyDoc = {
  type: 'object',
  required: ['filedata'],
  properties: {
    filedata: { type: 'string', format: 'binary', description: "the file; its name is taken from the part's filename" },
    name: { type: 'string', description: 'file name, used when the file part carries none' },
  },
} as const;
