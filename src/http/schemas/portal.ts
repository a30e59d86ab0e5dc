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

/** One provider of the portal's login page (`GET portal/providers`). */
export const PortalProvider = Type.Object(
  {
    id: Type.String({ description: 'oauth.providers[].id' }),
    name: Type.String({ description: 'the button label' }),
    issuer: Type.String(),
    authorizationEndpoint: Type.String({ description: 'where the browser goes with response_type=code, PKCE S256, state' }),
    tokenEndpoint: Type.String({ description: 'where the browser exchanges the code (and later the refresh token)' }),
    clientId: Type.String(),
    scope: Type.String(),
    token: Type.Enum(['access_token', 'id_token'], { description: "the member of the token answer to send to Quire as 'Authorization: Bearer'" }),
  },
  { additionalProperties: false },
);

const ThemeFile = Type.Object({ url: Type.String({ description: 'a path on this server, no credentials needed' }), contentType: Type.String() }, { additionalProperties: false });

/** The administration's look of the portal (`GET portal/theme`), from the data store. */
export const PortalTheme = Type.Object(
  {
    logo: ThemeFile,
    background: Type.Union([ThemeFile, Type.Null()], { description: 'null: none stored' }),
    theme: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], { description: 'a theme stored as a JSON object, as stored; null: none, or CSS' }),
    stylesheet: Type.Union([Type.String(), Type.Null()], { description: 'the path of a theme stored as CSS; null: none, or JSON' }),
  },
  { additionalProperties: false },
);
