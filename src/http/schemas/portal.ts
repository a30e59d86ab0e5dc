import Type from 'typebox';
import { MAX_THUMBNAIL_WIDTH } from '../../operations/documents/thumbnails.js';

/** `GET documents/{documentId}/thumbnail` query: which page, how wide. */
export const ThumbnailQuery = Type.Object(
  {
    page: Type.Integer({ minimum: 1, default: 1, description: 'the page (1 = the first); past the last page: 400, errorCode -14' }),
    width: Type.Integer({ minimum: 16, maximum: MAX_THUMBNAIL_WIDTH, default: 160, description: 'pixels; the height follows the page (at most 4 × the width)' }),
  },
  { additionalProperties: false },
);
