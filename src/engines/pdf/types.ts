/**
 * Wire shapes of the webPDF structures the PDF engine fills (webpdf-rest-interface.md §9.2 and
 * Appendix A). Names and enum values are exactly the reference's; members the engine cannot know are
 * given the reference's defaults.
 */
import type { KeyAlgorithm, Permissions } from './encryption.js';
import type { Recipient } from './recipients.js';

export type { KeyAlgorithm, Permissions, Recipient };

export type FormType = 'none' | 'acroForm' | 'staticXFA' | 'dynamicXFA';

/** `Metadata_Rectangle` (points, PDF coordinates: origin bottom-left). */
export interface MetadataRectangle {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** `Metadata_Boxes`: effective boxes (defaults applied, clipped to the media box as viewers do). */
export interface MetadataBoxes {
  mediaBox: MetadataRectangle;
  cropBox: MetadataRectangle;
  bleedBox: MetadataRectangle;
  trimBox: MetadataRectangle;
  artBox: MetadataRectangle;
}

/** `Metadata_PagePages`. */
export interface MetadataPage {
  /** 1-based page number. */
  number: number;
  /** Crop box width in points, before rotation. */
  width: number;
  /** Crop box height in points, before rotation. */
  height: number;
  /** /Rotate normalised to 0, 90, 180 or 270. */
  rotation: number;
  /** The page label from /PageLabels; "" when the document has none. */
  label: string;
  objectKey: string;
  boxes: MetadataBoxes;
}

/** `Metadata_PagesDocument` plus Quire's note that the list was cut. */
export interface MetadataPages {
  page: MetadataPage[];
  /**
   * Not in the webPDF reference: true when the document has more pages than the configured maximum
   * and `page` holds only the first ones. `information.pages` always has the full count. The caller
   * may drop the member before sending.
   */
  truncated: boolean;
}

/** `Metadata_Description`. */
export interface MetadataDescription {
  title: string;
  author: { name: string }[];
  subject: string;
  keywords: { keyword: string }[];
  creator: string;
  producer: string;
  /** From the XMP packet's xmp:CreatorTool ("" when absent). */
  application: string;
  /** ISO 8601 with offset when the PDF date parses, else the raw string. */
  creationDate: string;
  modificationDate: string;
  /** Document info entries other than the standard ones. */
  custom: { key: string; value: string }[];
}

export interface MetadataPdfa {
  part: string;
  conformance: string;
}

export type BoxSelection = 'mediaBox' | 'cropBox' | 'bleedBox' | 'trimBox' | 'artBox';

/** `Metadata_ViewerPreferences`. */
export interface MetadataViewerPreferences {
  centerWindow: boolean;
  displayDocTitle: boolean;
  duplex: 'none' | 'simplex' | 'duplexFlipShortEdge' | 'duplexFlipLongEdge';
  fitWindow: boolean;
  hideMenuBar: boolean;
  hideToolbar: boolean;
  hideWindowUI: boolean;
  nonFullScreenPageMode: 'none' | 'outlines' | 'thumbnails' | 'optionalContents';
  numCopies: number;
  printArea: BoxSelection;
  printClip: BoxSelection;
  printPageRange: string;
  printScaling: 'readerDefault' | 'noPrintScaling';
  printTraySelection: 'readerDefault' | 'byPDFSize';
  textDirection: 'leftToRight' | 'rightToLeft';
  viewArea: BoxSelection;
  viewClip: BoxSelection;
}

/** `Metadata_Information`. */
export interface MetadataInformation {
  attachments: number;
  description: MetadataDescription;
  docMDP: 'none' | 'noChangesAllowed' | 'formFillingSignatures' | 'formFillingSignaturesAnnotations';
  encrypted: boolean;
  fileSize: number;
  formType: FormType;
  initialPage: number;
  initialView: 'none' | 'outlines' | 'thumbnails' | 'fullscreen' | 'layers' | 'attachments';
  language: string;
  magnification: 'none' | 'fitWidth' | 'fitVisible' | 'fitHeight' | 'fitPage' | 'fitActual' | 'zoom';
  magnificationZoom: number;
  objectKey: string;
  pageLayout: 'singlePage' | 'oneColumn' | 'twoColumnLeft' | 'twoColumnRight' | 'twoPageLeft' | 'twoPageRight';
  pages: number;
  pdfa: MetadataPdfa;
  portfolio: boolean;
  /** Signature fields that carry a signature value. */
  signatures: number;
  /** The effective version: the header's, or the catalog's /Version when that is later. */
  version: string;
  viewerPreferences: MetadataViewerPreferences;
}

/** `Metadata_Password`. */
export interface MetadataPassword {
  hasAsymmetricEncryption: boolean;
  hasOpenPassword: boolean;
  hasPermissionPassword: boolean;
  keyAlgorithm: KeyAlgorithm;
  keyLength: number;
}

/** `Metadata_Security`: the permissions the document grants (from /P), whoever opens it. */
export interface MetadataSecurity extends Permissions {
  password: MetadataPassword;
}

/** `Metadata_FormValueStyle`. */
export interface MetadataFormValue {
  display: string;
  export: string;
  isDefault: boolean;
}

export type FieldType = 'text' | 'checkBox' | 'radioButton' | 'pushButton' | 'comboBox' | 'listBox' | 'signature' | 'unknown';

/** `Metadata_Positions`, the rectangle member of the one-of (`Metadata_AnnotationRectangle`). */
export interface MetadataAnnotationRectangle {
  /** Normalised /Rect: points, PDF coordinates (origin bottom-left of the page, before /Rotate). */
  rectangle: MetadataRectangle;
}

/** `Metadata_FieldAnnotation`: the field a widget annotation belongs to. */
export interface MetadataFieldAnnotation {
  name: string;
  alternateName: string;
  mappingName: string;
  type: FieldType;
}

/**
 * `Metadata_Annotation` of a form field's widget (the members a widget has; the optional nested
 * `appearance`, `border`, `drawStyle`, `line`, `markup` and `popup` are not read).
 */
export interface MetadataAnnotation {
  subType: string;
  /** 1-based page the widget is on (0: on no page). */
  page: number;
  /** The widget's rectangle; empty when its /Rect is not four numbers. */
  positions: MetadataAnnotationRectangle[];
  /** /C as #RRGGBB when it is an RGB colour, else the reference's default. */
  color: string;
  /** /Contents, "" when absent. */
  contents: string;
  /** /NM, "" when absent. */
  name: string;
  /** /MK /R: the rotation of the widget's appearance, 0, 90, 180 or 270. */
  rotation: number;
  iconName: string;
  /** The annotation flags (/F, ISO 32000-1 Table 165). */
  invisible: boolean;
  hidden: boolean;
  printable: boolean;
  zoomable: boolean;
  rotatable: boolean;
  viewable: boolean;
  writable: boolean;
  locked: boolean;
  objectKey: string;
  field: MetadataFieldAnnotation;
}

/** `Metadata_Field` (the members the engine fills; signature details are not read). */
export interface MetadataField {
  fullyQualifiedName: string;
  /** The last part of the fully qualified name. */
  name: string;
  /** /TU, "" when absent. */
  alternateName: string;
  /** /TM, "" when absent. */
  mappingName: string;
  type: FieldType;
  /** The PDF field type without slash: Tx, Btn, Ch, Sig. */
  subType: string;
  /** The current value as text: the text, the selected export value(s) joined by ", ", the button state, or "". */
  content: string;
  /** Choice options (display / export, isDefault when it is the /DV), or the on-state of a check box / radio button. */
  value: MetadataFormValue[];
  readOnly: boolean;
  required: boolean;
  noExport: boolean;
  multiSelect: boolean;
  isRichText: boolean;
  objectKey: string;
  /** The field's widget annotations, each with its page and rectangle (filled by the metadata, empty elsewhere). */
  annotation: MetadataAnnotation[];
}

/** `Metadata_FormDocument`. */
export interface MetadataForm {
  formType: FormType;
  defaultAppearance: string;
  needAppearances: boolean;
  objectKey: string;
  field: MetadataField[];
}

/** `Document_MetadataPdf` (the members the engine fills). */
export interface DocumentMetadataPdf {
  metadataType: 'pdf';
  information: MetadataInformation;
  pages: MetadataPages;
  security: MetadataSecurity;
  form: MetadataForm;
}

/** What opening the file needs. See `PdfInspector.security`. */
export type SecurityKind = 'none' | 'openPassword' | 'permissionOnly' | 'certificate';

export interface SecurityInfo {
  kind: SecurityKind;
  encrypted: boolean;
  /** A non-empty user password is needed to open the document (`Document_Password.isOpenSet`). */
  hasOpenPassword: boolean;
  /** A non-empty owner password is set (`Document_Password.isPermissionSet`). */
  hasPermissionPassword: boolean;
  /** The public-key security handler (`Document_Password.isCertificateSet`). */
  hasCertificate: boolean;
  /** /Filter of the encryption dictionary ("Standard", "Adobe.PubSec"); "" when not encrypted. */
  filter: string;
  /** /SubFilter of the public-key handler (adbe.pkcs7.s3/s4/s5). */
  subFilter?: string;
  /** Standard handler revision (/R). */
  revision?: number;
  keyAlgorithm: KeyAlgorithm;
  keyLength: number;
  /** From /P when the file has it (not for certificate encryption, whose permissions are per recipient). */
  permissions?: Permissions;
  /** Certificate encryption: whom the document is encrypted for (`Document_Password.recipients`). */
  recipients: Recipient[];
  /** qpdf had to repair the file (damaged xref etc.). */
  repaired: boolean;
}

export type PasswordCheck = 'owner' | 'user' | 'wrong' | 'notEncrypted';

export interface Credentials {
  /** User or owner password of a password-protected PDF. */
  password?: string;
}

/** `Document_InfoFormField` with the AcroForm details the engine has anyway. */
export interface FormFieldInfo {
  fullyQualifiedName: string;
  dataXPath: string;
  type: FieldType;
  /** Current value as text (see MetadataField.content). */
  value: string;
  /** Selected export values (more than one for multi-select list boxes). */
  values: string[];
}

export interface FormFieldsResult {
  formType: FormType;
  /** The document has an XFA form (/AcroForm /XFA). */
  xfa: boolean;
  fields: FormFieldInfo[];
  /** The AcroForm data as XFDF (UTF-8 XML), for `Document_InfoForm.value` (Base64 on the wire). */
  xfdf: Buffer;
}
