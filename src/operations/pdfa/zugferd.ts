import { QuireError } from '../../core/errors.js';
import { isElement, parseXml, XmlSyntaxError } from '../../engines/pdf-edit/document/xml.js';
import type { PdfaExtras } from '../../engines/pdf-edit/pdfa/fixups.js';

/**
 * `convert.zugferd.xmlFile` (reference §10.2, Operation_ZugferdFileData): a ZUGFeRD/Factur-X invoice
 * XML embedded in the PDF/A-3 as its associated file (ISO 19005-3 §6.8: AFRelationship, MIME type,
 * listed in the catalog's /AF), with the XMP properties the standard asks for and the PDF/A extension
 * schema that describes them. Only PDF/A-3 allows an embedded file that is not PDF/A itself: any
 * other level is refused before any work.
 *
 * The file name, namespace and version follow the standard the `version` names: ZUGFeRD 1.0
 * (`ZUGFeRD-invoice.xml`, `urn:ferd:…:1p0#`), ZUGFeRD 2.0 (`zugferd-invoice.xml`, `…:2p0#`), and
 * ZUGFeRD 2.1 and later = Factur-X 1.0 (`factur-x.xml`, `urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#`).
 */

/** The invoice XML at most (a ZUGFeRD invoice is a few hundred KB at most, attachments live outside it). */
const MAX_XML_BYTES = 10 * 1024 * 1024;

const VERSIONS = ['v10Comfort', ...['v20', 'v21', 'v22', 'v23'].flatMap((v) => ['Minimum', 'BasicWL', 'Basic', 'EN16931', 'Extended', ...(v === 'v20' ? [] : ['XRechnung'])].map((p) => `${v}${p}`))];

/** The profile part of a version as the standards write ConformanceLevel. */
const LEVELS: Record<string, string> = { Comfort: 'COMFORT', Minimum: 'MINIMUM', BasicWL: 'BASIC WL', Basic: 'BASIC', EN16931: 'EN 16931', Extended: 'EXTENDED', XRechnung: 'XRECHNUNG' };

interface ZugferdRequest {
  xmlFile?: { source?: string; uri?: string; value?: string; version?: string };
}

/** The embedding `convert.zugferd` asks for, or undefined without it; a QuireError for a wrong request or level. */
export function zugferdExtras(zugferd: unknown, level: string, field: string): PdfaExtras | undefined {
  if (zugferd === undefined) return undefined;
  const request = zugferd as ZugferdRequest;
  const file = request.xmlFile;
  if (typeof file !== 'object' || file === null) throw new QuireError('PARAMETER', `Invalid parameter ${field}.xmlFile: required (the invoice XML, Base64 in value).`);
  if (!level.startsWith('3')) {
    throw new QuireError(
      'PDFA_LEVEL_UNSUPPORTED',
      `${field} embeds the invoice XML as an associated file, which only PDF/A-3 allows (PDF/A-1 forbids embedded files, PDF/A-2 allows only PDF/A ones): convert to 3b (ZUGFeRD's and Factur-X's level), 3u or 3a. Level ${level} was asked for.`,
    );
  }
  if ((file.source ?? 'value') !== 'value')
    throw new QuireError('OPTION_UNSUPPORTED', `${field}.xmlFile.source "uri" is not supported: send the invoice XML Base64-encoded in ${field}.xmlFile.value.`);
  const version = file.version ?? 'v10Comfort';
  if (!VERSIONS.includes(version)) throw new QuireError('PARAMETER', `Invalid parameter ${field}.xmlFile.version: "${version}" is not one of ${VERSIONS.join(', ')}.`);
  const value = file.value ?? '';
  if (value === '' || !/^[A-Za-z0-9+/=\s]+$/.test(value)) throw new QuireError('PARAMETER', `Invalid parameter ${field}.xmlFile.value: the invoice XML, Base64-encoded, is required.`);
  if ((value.length * 3) / 4 > MAX_XML_BYTES + 4) throw new QuireError('PARAMETER', `Invalid parameter ${field}.xmlFile.value: the invoice XML is larger than ${MAX_XML_BYTES / 1048576} MB.`);
  const bytes = Buffer.from(value, 'base64');
  checkInvoiceXml(bytes, field);

  const profile = version.slice(3);
  const generation = version.slice(0, 3);
  const standard =
    generation === 'v10'
      ? { file: 'ZUGFeRD-invoice.xml', uri: 'urn:ferd:pdfa:CrossIndustryDocument:invoice:1p0#', prefix: 'zf', name: 'ZUGFeRD PDFA Extension Schema', version: '1.0' }
      : generation === 'v20'
        ? { file: 'zugferd-invoice.xml', uri: 'urn:zugferd:pdfa:CrossIndustryDocument:invoice:2p0#', prefix: 'fx', name: 'ZUGFeRD PDFA Extension Schema', version: '2p0' }
        : { file: 'factur-x.xml', uri: 'urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#', prefix: 'fx', name: 'Factur-X PDFA Extension Schema', version: '1.0' };
  const text = (name: string, description: string, value: string) => ({ name, type: 'Text' as const, category: 'external' as const, description, text: value });
  return {
    attachments: [
      {
        name: standard.file,
        bytes,
        mimeType: 'text/xml',
        description: `${standard.name.replace(' PDFA Extension Schema', '')} invoice (${LEVELS[profile]})`,
        modified: new Date(),
        relationship: 'Alternative',
      },
    ],
    xmpExtension: {
      namespace: { uri: standard.uri, prefix: standard.prefix, name: standard.name },
      properties: [
        text('DocumentFileName', 'The name of the embedded XML invoice file', standard.file),
        text('DocumentType', 'The type of the hybrid document in capital letters, e.g. INVOICE or ORDER', 'INVOICE'),
        text('Version', 'The actual version of the standard applying to the embedded XML document', standard.version),
        text('ConformanceLevel', 'The conformance level of the embedded XML document', LEVELS[profile]!),
      ],
    },
  };
}

/** A well-formed XML document whose root is a (ZUGFeRD 1) CrossIndustryDocument or a (ZUGFeRD 2 / Factur-X) CrossIndustryInvoice. */
function checkInvoiceXml(bytes: Buffer, field: string): void {
  let root: string | undefined;
  try {
    const document = parseXml(bytes.toString('utf8').replace(/^\uFEFF/, ''));
    root = document.root && isElement(document.root) ? document.root.name : undefined;
  } catch (error) {
    if (!(error instanceof XmlSyntaxError)) throw error;
    throw new QuireError('PARAMETER', `Invalid parameter ${field}.xmlFile.value: not well-formed XML (${error.message}).`);
  }
  const local = root?.slice(root.indexOf(':') + 1);
  if (local !== 'CrossIndustryInvoice' && local !== 'CrossIndustryDocument') {
    throw new QuireError(
      'PARAMETER',
      `Invalid parameter ${field}.xmlFile.value: not a ZUGFeRD/Factur-X invoice (its root element is ${root ?? 'missing'}, not CrossIndustryInvoice or CrossIndustryDocument).`,
    );
  }
}
