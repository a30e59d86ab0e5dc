import Type, { type Static } from 'typebox';
import { DATASTORE_GROUPS, type DataStoreEntry } from '../../operations/admin/datastore.js';
import { component } from './shared.js';

const groupDescription = 'Admin_FileGroupDataStore: generic (named files), theme (JSON object or CSS), logo and background (PNG, JPEG, GIF, WebP, BMP or SVG)';

/**
 * Admin_FileDataStore with the members of its four subtypes (discriminator `fileGroup`:
 * Admin_GenericFileDataStore, Admin_ThemeFileDataStore, Admin_LogoFileDataStore,
 * Admin_BackgroundFileDataStore). On the wire they differ only in `fileName`, which generic has.
 */
export const FileDataStore = component(
  Type.Object(
    {
      fileGroup: Type.Enum(DATASTORE_GROUPS, { description: groupDescription }),
      fileContent: Type.String({ description: 'the file, Base64-encoded' }),
      fileName: Type.Optional(Type.String({ description: "generic only: the file's name" })),
    },
    { $id: 'Admin_FileDataStore' },
  ),
);

/** The POST body: the same members, only `fileGroup` required (as in the reference). */
export const FileDataStoreBody = Type.Object({
  fileGroup: Type.Enum(DATASTORE_GROUPS, { description: groupDescription }),
  fileContent: Type.Optional(Type.String({ default: '', description: 'the file, Base64-encoded' })),
  fileName: Type.Optional(Type.String({ description: 'generic only: 1-128 letters, digits, ".", "-", "_", starting with a letter or digit; default unknown.txt' })),
});

export const DataStoreGroupParams = Type.Object({
  group: Type.Enum(DATASTORE_GROUPS, { description: groupDescription }),
});

export const DataStoreNameQuery = Type.Object({
  name: Type.Optional(Type.String({ default: '', description: 'the file of the generic group; ignored by the others' })),
});

export function toFileDataStore(entry: DataStoreEntry): Static<typeof FileDataStore> {
  return {
    fileGroup: entry.group,
    fileContent: entry.content.toString('base64'),
    ...(entry.name === undefined ? {} : { fileName: entry.name }),
  };
}
