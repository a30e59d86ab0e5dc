import Type from 'typebox';
import { component, ref, WebserviceException } from './shared.js';

const FileData = {
  source: Type.Optional(Type.Enum(['value', 'uri'], { default: 'value' })),
  uri: Type.Optional(Type.String()),
  value: Type.Optional(Type.String({ description: 'PEM text, or Base64 of PEM or DER' })),
};

export const PdfPassword = component(
  Type.Object(
    {
      open: Type.Optional(Type.String({ description: 'user (open) password' })),
      permission: Type.Optional(Type.String({ description: 'owner (permission) password' })),
      keyPair: Type.Optional(
        Type.Object(
          {
            certificate: Type.Object(FileData),
            privateKey: Type.Object({ ...FileData, password: Type.Optional(Type.String({ description: 'password of an encrypted private key' })) }),
          },
          { description: 'Operation_KeyPair: a recipient certificate and its private key, for certificate-encrypted PDFs' },
        ),
      ),
    },
    { $id: 'Operation_PdfPassword' },
  ),
);

const FilterRule = Type.Object({
  rulePattern: Type.String(),
  ruleType: Type.Enum(['suffix', 'regex', 'glob']),
});

export const FileFilter = component(
  Type.Object(
    {
      includeRules: Type.Optional(Type.Array(FilterRule)),
      excludeRules: Type.Optional(Type.Array(FilterRule)),
    },
    { $id: 'Document_FileFilter' },
  ),
);

export const FileCompress = component(
  Type.Object(
    {
      documentIdList: Type.Optional(Type.Array(Type.String())),
      fileFilter: Type.Optional(ref(FileFilter)),
      archiveFileName: Type.Optional(Type.String({ default: 'archive.zip' })),
      storeArchive: Type.Optional(Type.Boolean({ default: false })),
    },
    { $id: 'Document_FileCompress' },
  ),
);

export const FileExtract = component(Type.Object({ fileFilter: Type.Optional(ref(FileFilter)) }, { $id: 'Document_FileExtract' }));

export const InfoForm = component(
  Type.Object(
    {
      infoType: Type.Enum(['form']),
      value: Type.String({ description: 'the form data as XFDF, Base64' }),
      acroFormFields: Type.Array(Type.Object({ fullyQualifiedName: Type.String(), dataXPath: Type.String() })),
      error: ref(WebserviceException),
    },
    { $id: 'Document_InfoForm' },
  ),
);
