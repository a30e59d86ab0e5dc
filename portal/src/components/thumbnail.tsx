/**
 * A page thumbnail rendered by the server (documents/{id}/thumbnail, PNG), fetched with the session's
 * token and shown from a blob: URL: no token ever appears in an address, and the image element only
 * ever receives PNG bytes the browser decodes as an image (never a page of this origin).
 */
import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { isPdf } from '../api/documents';
import { blob } from '../api/http';
import type { DocumentFile } from '../api/types';

export function Thumbnail({ document, width = 160 }: { document: DocumentFile; width?: number }): JSX.Element {
  const [url, setUrl] = useState<string>();
  const [failed, setFailed] = useState(false);
  const version = `${document.documentId}:${document.historyId}:${document.fileLastModified}:${document.fileSize}`;
  useEffect(() => {
    let objectUrl: string | undefined;
    let live = true;
    setFailed(false);
    setUrl(undefined);
    // The server renders PDFs only (other types answer -211): no call for them.
    if (!isPdf(document)) return;
    blob(`documents/${document.documentId}/thumbnail?page=1&width=${width}`).then(
      (image) => {
        if (!live || !image.type.startsWith('image/')) return setFailed(!image.type.startsWith('image/'));
        objectUrl = URL.createObjectURL(image);
        setUrl(objectUrl);
      },
      () => live && setFailed(true),
    );
    return () => {
      live = false;
      if (objectUrl) URL.revokeObjectURL(objectUrl);
    };
  }, [version, width]);
  if (url) return <img class="thumb" src={url} alt="" width={width / 2} />;
  return (
    <span class={`thumb placeholder${failed ? ' failed' : ''}`} aria-hidden="true">
      {document.fileExtension.toUpperCase().slice(0, 4) || '?'}
    </span>
  );
}
