/**
 * The web services of reference §7 (`Webservice`): a call under `{restBase}/<name>/` is one of
 * their operations. This is the wire enumeration (statuses, statistics, metrics and the application
 * configuration show all seven); which of them this server offers is the registry of web-service
 * modules (operations/webservices.ts).
 */
export const WEBSERVICES = ['signature', 'pdfa', 'toolbox', 'converter', 'urlconverter', 'ocr', 'barcode'] as const;
export type WebserviceName = (typeof WEBSERVICES)[number];

const NAMES: ReadonlySet<string> = new Set(WEBSERVICES);

export function isWebservice(name: string): name is WebserviceName {
  return NAMES.has(name);
}

/**
 * The OpenAPI tags of the seven web services, in the reference's order and with its descriptions: the
 * document lists every tag of the interface, whether this server offers the service or not.
 */
export const REFERENCE_TAGS: readonly { name: WebserviceName; description: string }[] = [
  { name: 'converter', description: 'Convert documents of other formats to PDF' },
  { name: 'pdfa', description: 'Convert and validate PDF documents to PDF/A' },
  { name: 'ocr', description: 'Text recognition on images or PDF documents' },
  { name: 'signature', description: 'Digitally sign PDF documents' },
  { name: 'toolbox', description: 'Edit PDF documents (split, merge, export, ...)' },
  { name: 'urlconverter', description: 'Convert web sites to PDF' },
  { name: 'barcode', description: 'Apply or recognise barcodes' },
];

/** The reference's tag of a web service (a module's default `tag`). */
export function referenceTag(name: WebserviceName): { name: string; description: string } {
  return REFERENCE_TAGS.find((tag) => tag.name === name)!;
}

/**
 * The body of each web service's operations: its `Operation_<Name>Operation` component (reference
 * §10), e.g. `{"ocr": {...}, "password": {...}}` for `POST ocr/{documentId}`.
 */
export const OPERATION_COMPONENTS: Readonly<Record<WebserviceName, string>> = {
  converter: 'Operation_ConverterOperation',
  pdfa: 'Operation_PdfaOperation',
  ocr: 'Operation_OcrOperation',
  signature: 'Operation_SignatureOperation',
  toolbox: 'Operation_ToolboxOperation',
  urlconverter: 'Operation_UrlConverterOperation',
  barcode: 'Operation_BarcodeOperation',
};
