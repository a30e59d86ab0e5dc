import Type from 'typebox';
import { defaulted, type Options } from '../option-schema.js';
import { componentRef, operationEnvelope, type OperationRequest } from '../webservice.js';

/**
 * `Operation_SignatureOperation` (reference §10.3): `POST signature/{documentId}` with
 * `{"signature":{"add":…}}` to sign or `{"signature":{"clear":…}}` to remove signatures. The
 * `Operation_Signature` member is the one declaration a nested signing step uses too.
 */

const FileData = (description: string) =>
  Type.Object(
    {
      source: defaulted(Type.Enum(['value', 'uri'], { default: 'value' })),
      uri: defaulted(Type.String({ default: '' })),
      value: defaulted(Type.String({ default: '', description })),
    },
    { additionalProperties: true },
  );

export const SignaturePosition = Type.Object(
  {
    x: defaulted(Type.Number({ minimum: 0, default: 0 })),
    y: defaulted(Type.Number({ minimum: 0, default: 0 })),
    width: defaulted(Type.Number({ minimum: 0, default: 50 })),
    height: defaulted(Type.Number({ minimum: 0, default: 10 })),
    metrics: defaulted(Type.Enum(['pt', 'pc', 'px', 'mm', 'in'], { default: 'mm' })),
    coordinates: defaulted(Type.Enum(['pdf', 'user'], { default: 'user', description: 'user: from the top-left corner, y down; pdf: from the bottom-left corner, y up' })),
  },
  { $id: 'Operation_SignaturePosition' },
);

export const SignatureIdentifier = Type.Object(
  {
    showCommonName: defaulted(Type.Boolean({ default: true })),
    showCountry: defaulted(Type.Boolean({ default: true })),
    showDate: defaulted(Type.Boolean({ default: true })),
    showLocal: defaulted(Type.Boolean({ default: true })),
    showMail: defaulted(Type.Boolean({ default: true })),
    showName: defaulted(Type.Boolean({ default: true })),
    showOrganisationName: defaulted(Type.Boolean({ default: true })),
    showOrganisationUnit: defaulted(Type.Boolean({ default: true })),
    showSignedBy: defaulted(Type.Boolean({ default: true })),
    showState: defaulted(Type.Boolean({ default: true })),
    textSignedBy: defaulted(Type.String({ default: '' })),
  },
  { $id: 'Operation_SignatureIdentifier' },
);

export const SignatureImage = Type.Object(
  {
    data: FileData('Base64 of a PNG or JPEG image'),
    opacity: defaulted(Type.Integer({ minimum: 0, maximum: 100, default: 50 })),
    position: defaulted(Type.Enum(['center', 'left', 'right'], { default: 'center' })),
  },
  { $id: 'Operation_SignatureImage' },
);

export const AppearanceAdd = Type.Object(
  {
    page: defaulted(Type.Integer({ minimum: 1, default: 1, description: '1-based page of the signature field' })),
    position: Type.Optional(componentRef<Options<typeof SignaturePosition>>('Operation_SignaturePosition')),
    name: defaulted(Type.String({ default: '', description: "text of the left area; '' = the certificate's common name when showCommonName" })),
    showCommonName: defaulted(Type.Boolean({ default: true })),
    identifier: defaulted(Type.String({ default: '', description: "text of the right area; '' = from identifierElements" })),
    identifierElements: Type.Optional(componentRef<Options<typeof SignatureIdentifier>>('Operation_SignatureIdentifier')),
    image: Type.Optional(componentRef<Options<typeof SignatureImage>>('Operation_SignatureImage')),
  },
  { $id: 'Operation_AppearanceAdd' },
);

export const KeyPair = Type.Object(
  {
    certificate: FileData('the certificate (chain): PEM text, or Base64 of PEM or DER'),
    privateKey: Type.Object(
      {
        source: defaulted(Type.Enum(['value', 'uri'], { default: 'value' })),
        uri: defaulted(Type.String({ default: '' })),
        value: defaulted(Type.String({ default: '', description: 'PEM text, or Base64 of PEM or DER (PKCS#8)' })),
        password: defaulted(Type.String({ default: '' })),
      },
      { additionalProperties: true },
    ),
  },
  { $id: 'Operation_KeyPair', description: 'a certificate (chain) and its private key, for this call only' },
);

export const AddSignature = Type.Object(
  {
    appearance: Type.Optional(componentRef<Options<typeof AppearanceAdd>>('Operation_AppearanceAdd')),
    appendSignature: defaulted(Type.Boolean({ default: false, description: 'deprecated, ignored (signatures are always appended as incremental updates)' })),
    certificationLevel: defaulted(
      Type.Enum(['none', 'noChanges', 'formFillingAndSignatures', 'formFillingAndSignaturesAndAnnotations'], {
        default: 'noChanges',
        description: 'DocMDP: none = approval signature; otherwise a certification with P=1, 2 or 3',
      }),
    ),
    contact: defaulted(Type.String({ default: '' })),
    fieldName: defaulted(Type.String({ default: 'Signature1', description: 'made unique when taken' })),
    keyName: defaulted(Type.String({ default: '', description: "alias of a server key; '' = the default key" })),
    keyPassword: defaulted(Type.String({ default: '' })),
    location: defaulted(Type.String({ default: '' })),
    reason: defaulted(Type.String({ default: '' })),
    signer: Type.Optional(Type.Object({ keyPair: componentRef<Options<typeof KeyPair>>('Operation_KeyPair') })),
  },
  { $id: 'Operation_AddSignature' },
);

export const ClearSignature = Type.Object({ flatten: defaulted(Type.Boolean({ default: false })) }, { $id: 'Operation_ClearSignature' });

export const Signature = Type.Object(
  {
    add: Type.Optional(componentRef<Options<typeof AddSignature>>('Operation_AddSignature')),
    clear: Type.Optional(componentRef<Options<typeof ClearSignature>>('Operation_ClearSignature')),
  },
  { $id: 'Operation_Signature' },
);

export type SignatureOptions = Options<typeof Signature>;
export type AddSignatureOptions = Options<typeof AddSignature>;

export const SignatureOperation = operationEnvelope<SignatureOptions>('signature', 'Operation_Signature');

export type SignatureRequest = OperationRequest<'signature', SignatureOptions>;

/** Every named schema of the signature web service, in the order the HTTP layer registers them. */
export const SIGNATURE_COMPONENTS = [SignaturePosition, SignatureIdentifier, SignatureImage, AppearanceAdd, KeyPair, AddSignature, ClearSignature, Signature, SignatureOperation];
