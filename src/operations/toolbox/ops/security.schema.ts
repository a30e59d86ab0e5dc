import Type from 'typebox';
import { base64FileData } from './file-data.schema.js';
import { defaulted, type Options } from '../../option-schema.js';

/**
 * `Operation_ToolboxSecurity.security` (reference §10.9.13): protect a PDF with passwords
 * (`encrypt`) or for certificate holders (`encryptCertificate`), or remove its protection
 * (`decrypt`). Give exactly one of them.
 */

const flag = (description: string) => defaulted(Type.Boolean({ default: false, description }));

/** The eight permission flags shared by `Operation_Encrypt` and `Operation_Recipient`. */
const permissions = {
  canAssemble: flag('insert, rotate or delete pages, create bookmarks and thumbnails'),
  canExtractContent: flag('copy or extract text and graphics'),
  canExtractForAccessibility: flag('extract text and graphics for accessibility; AES keys (revisions 4 and 6) always allow it, as ISO 32000-2 requires'),
  canFillInForm: flag('fill in form fields (including signature fields)'),
  canModify: flag('modify the document otherwise'),
  canModifyAnnotations: flag('add or modify annotations and fill in form fields'),
  canPrint: flag('print (low resolution unless canPrintHighRes)'),
  canPrintHighRes: flag('print in full quality (implies canPrint)'),
};

const EncryptionKey = Type.Enum(['RC4_40', 'RC4_128', 'AES_128', 'AES_256'], {
  description:
    'Operation_PdfEncryptionKey. The reference names RC4_128 as default; this server uses AES_256 when the member is absent, ' +
    'because RC4 is broken. RC4_40 and RC4_128 are written only when asked for explicitly (for viewers older than Acrobat 7).',
});

const ContentEncryption = defaulted(
  Type.Enum(['encryptEverything', 'exposeMetadata'], {
    default: 'encryptEverything',
    description: 'Operation_PdfContentEncryption: exposeMetadata leaves the XMP metadata stream unencrypted (not with RC4_40)',
  }),
);

const Encrypt = Type.Object(
  {
    ...permissions,
    contentEncryption: ContentEncryption,
    password: Type.Optional(
      Type.Object(
        {
          encryptionKey: Type.Optional(EncryptionKey),
          open: defaulted(Type.String({ default: '', description: 'open (user) password; empty: the document opens without one' })),
          permission: defaulted(Type.String({ default: '', description: 'permission (owner) password; empty: a random one nobody knows, so the restrictions cannot be lifted' })),
        },
        { description: 'Operation_PasswordEncrypt' },
      ),
    ),
  },
  { description: 'Operation_Encrypt: password protection (Standard security handler)' },
);

const Recipient = Type.Object(
  {
    ...permissions,
    certificate: base64FileData('Operation_CertificateFileData', defaulted(Type.String({ default: '', description: 'Base64 of the X.509 certificate (PEM or DER) holding an RSA key' }))),
  },
  { description: 'Operation_Recipient: a certificate holder and what they may do' },
);

const EncryptCertificate = Type.Object(
  {
    contentEncryption: ContentEncryption,
    encryptionKey: Type.Optional(EncryptionKey),
    recipient: Type.Array(Recipient, { minItems: 1 }),
  },
  { description: 'Operation_EncryptCertificate: certificate encryption (/Adobe.PubSec); each recipient opens the document with their private key' },
);

export const securityOptions = Type.Object(
  {
    decrypt: Type.Optional(Type.Object({}, { description: "Operation_Decrypt: removes the protection (the document is opened with the call's or the remembered password)" })),
    encrypt: Type.Optional(Encrypt),
    encryptCertificate: Type.Optional(EncryptCertificate),
  },
  { description: 'Operation_ToolboxSecurity.security: exactly one of decrypt, encrypt, encryptCertificate' },
);

export type SecurityOptions = Options<typeof securityOptions>;
