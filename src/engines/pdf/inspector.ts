import type { PdfStructureTool } from '../contracts.js';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Permissions } from './encryption.js';
import { ALL_PERMISSIONS, encryptionParameters, permissionsFromBits } from './encryption.js';
import { PdfEngineError } from './errors.js';
import { defaultValues, fillChoiceOptions, fillWidgetAnnotations, parseAcroFormFields, toXfdf, widgetMemberRefs, widgetRefs } from './forms.js';
import type { ParsedField } from './forms.js';
import { description, effectiveBoxes, effectiveVersion, initialView, labelRanges, normaliseRotation, openView, pageLabel, pageLayout, viewerPreferences } from './metadata.js';
import { listPages } from './page-count.js';
import { QpdfRunner, UNSUPPORTED_FILTER, classifyFailure, passableAsLine } from './qpdf.js';
import type { QpdfCall } from './qpdf.js';
import { ObjectFetcher, asArray, asBoolean, asDict, asName, asNumber, asText, isRef, parseJson } from './qpdf-json.js';
import type { QDict, QValue } from './qpdf-json.js';
import { readEncryptDictionary, readTrailerSize, scanForEncryptDictionary } from './trailer-reader.js';
import { readNameTree, readNumberTree } from './trees.js';
import type { EncryptLookup } from './trailer-reader.js';
import type { Credentials, DocumentMetadataPdf, FormFieldsResult, FormType, MetadataInformation, MetadataPage, PasswordCheck, SecurityInfo } from './types.js';
import { readXmp } from './xmp.js';

/**
 * Reads what the REST layer reports about a PDF: its protection, metadata, pages and form. Every
 * method takes a file path, starts qpdf as a separate process (never loads the PDF into memory) and
 * finishes within `timeoutMs` or fails with a `PdfEngineError` of kind `timeout`.
 */
export interface PdfInspector {
  /**
   * How the file is protected, without any credentials:
   * - `none`: not encrypted;
   * - `openPassword`: a (non-empty) user password is needed to open it;
   * - `permissionOnly`: encrypted, opens without a password (an owner password restricts
   *   permissions; `hasPermissionPassword` is false in the odd case that the owner password is empty too);
   * - `certificate`: the public-key security handler (/Filter /Adobe.PubSec), with its recipients.
   * Throws `invalidPdf` for non-PDFs and hopeless damage, `unsupportedEncryption` for other handlers.
   */
  security(file: string): Promise<SecurityInfo>;
  /**
   * Which password `password` is: `owner`, `user`, `wrong`, or `notEncrypted` for a file without
   * encryption. Throws `certificateRequired` for certificate-encrypted files.
   */
  checkPassword(file: string, password: string): Promise<PasswordCheck>;
  /**
   * Whether the key pair opens the certificate-encrypted file: the certificate (PEM or DER) must be a
   * recipient and the private key (PEM/DER, PKCS#1 or PKCS#8, optionally encrypted with
   * `privateKeyPassword`) must decrypt that recipient's key. False for files that are not
   * certificate-encrypted. Throws `keyMaterialInvalid` for unreadable material or a wrong key password.
   */
  checkCertificate(file: string, certificate: string | Buffer, privateKey: string | Buffer, privateKeyPassword?: string): Promise<boolean>;
  /**
   * `Document_MetadataPdf` (information, pages, security, form). Password-protected files need
   * `credentials.password` (user or owner): otherwise `passwordRequired` / `passwordWrong`;
   * certificate-encrypted files give `certificateRequired` (qpdf cannot decrypt them).
   */
  metadata(file: string, credentials?: Credentials): Promise<DocumentMetadataPdf>;
  /** The AcroForm fields and their data as XFDF, for `Document_InfoForm`. Same credentials rules as `metadata`. */
  formFields(file: string, credentials?: Credentials): Promise<FormFieldsResult>;
}

export interface PdfInspectorOptions {
  /** qpdf binary; default "qpdf" (PATH). Ignored when `qpdf` is given. */
  qpdfPath?: string;
  /** The server's one configured qpdf runner (engines-wiring.ts); default: a runner of its own. */
  qpdf?: PdfStructureTool;
  /** Time limit of one public call (all its qpdf runs together), ms; default 30 000. */
  timeoutMs?: number;
  /** Most pages listed in `pages.page`; beyond it the list is cut and `pages.truncated` set. Default 10 000. */
  maxPages?: number;
  /** Bound of one qpdf JSON output, bytes; default 128 MiB. */
  maxJsonBytes?: number;
  /** Bound of the XMP packet read, bytes; default 4 MiB (a longer packet is read up to it). */
  maxXmpBytes?: number;
  /**
   * Files whose trailer /Size is at most this are read with one qpdf JSON dump of all objects
   * (dictionaries only); larger ones by fetching the needed objects in batches. Default 100 000.
   */
  maxDumpObjects?: number;
}

export const PDF_INSPECTOR_DEFAULTS = {
  qpdfPath: 'qpdf',
  timeoutMs: 30_000,
  maxPages: 10_000,
  maxJsonBytes: 128 * 1024 * 1024,
  maxXmpBytes: 4 * 1024 * 1024,
  maxDumpObjects: 100_000,
} as const;

/** node-forge (PKCS#7) is loaded when a certificate-encrypted PDF first shows up, not at server start. */
function recipientsModule() {
  return import('./recipients.js');
}

export function createPdfInspector(options: PdfInspectorOptions = {}): PdfInspector {
  return new QpdfInspector(options);
}

const NOT_ENCRYPTED = /File is not encrypted/;
const OWNER_MATCHED = /Supplied password is owner password/;
const USER_MATCHED = /Supplied password is user password/;
const INCORRECT = /Incorrect password supplied/;

interface Access {
  security: SecurityInfo;
  /** The password to hand qpdf (undefined: none needed or the given one does not help). */
  password?: string;
}

export class QpdfInspector implements PdfInspector {
  private readonly qpdf: PdfStructureTool;
  private readonly timeoutMs: number;
  private readonly maxPages: number;
  private readonly maxJsonBytes: number;
  private readonly maxXmpBytes: number;
  private readonly maxDumpObjects: number;

  constructor(options: PdfInspectorOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? PDF_INSPECTOR_DEFAULTS.timeoutMs;
    this.maxPages = options.maxPages ?? PDF_INSPECTOR_DEFAULTS.maxPages;
    this.maxJsonBytes = options.maxJsonBytes ?? PDF_INSPECTOR_DEFAULTS.maxJsonBytes;
    this.maxXmpBytes = options.maxXmpBytes ?? PDF_INSPECTOR_DEFAULTS.maxXmpBytes;
    this.maxDumpObjects = options.maxDumpObjects ?? PDF_INSPECTOR_DEFAULTS.maxDumpObjects;
    this.qpdf = options.qpdf ?? new QpdfRunner({ qpdfPath: options.qpdfPath ?? PDF_INSPECTOR_DEFAULTS.qpdfPath, timeoutMs: this.timeoutMs });
  }

  // ---- security ----

  async security(file: string): Promise<SecurityInfo> {
    const absolute = await readableFile(file);
    return this.securityOf(absolute, this.deadline());
  }

  private async securityOf(file: string, deadline: number): Promise<SecurityInfo> {
    const [shown, lookup] = await Promise.all([
      this.qpdf.raw(['--show-encryption', file], { deadline }),
      readEncryptDictionary(file).catch((error: unknown): EncryptLookup => ({ status: 'unreadable', reason: String(error) })),
    ]);
    if (shown.exitCode !== 0 && shown.exitCode !== 3) {
      if (UNSUPPORTED_FILTER.test(shown.stderr)) return this.nonStandardSecurity(file, lookup, shown.stderr);
      throw classifyFailure(shown);
    }
    const text = shown.stdout.toString('utf8');
    const repaired = shown.exitCode === 3 || /^WARNING: /m.test(shown.stderr);
    if (NOT_ENCRYPTED.test(text)) {
      return {
        kind: 'none',
        encrypted: false,
        hasOpenPassword: false,
        hasPermissionPassword: false,
        hasCertificate: false,
        filter: '',
        keyAlgorithm: 'none',
        keyLength: 0,
        recipients: [],
        repaired,
      };
    }
    // The empty password was supplied: which password it matched tells which ones are empty.
    const ownerEmpty = OWNER_MATCHED.test(text);
    const userEmpty = ownerEmpty || USER_MATCHED.test(text);
    const fromQpdf = qpdfEncryptionText(text);
    const params = lookup.status === 'found' && lookup.dict ? encryptionParameters(lookup.dict) : undefined;
    const revision = params?.r ?? fromQpdf.revision;
    const p = params?.permissionBits ?? fromQpdf.p;
    return {
      kind: userEmpty ? 'permissionOnly' : 'openPassword',
      encrypted: true,
      hasOpenPassword: !userEmpty,
      hasPermissionPassword: !ownerEmpty,
      hasCertificate: false,
      filter: params?.filter ?? 'Standard',
      ...(revision === undefined ? {} : { revision }),
      keyAlgorithm: params?.keyAlgorithm ?? fromQpdf.keyAlgorithm,
      keyLength: params?.keyLength ?? fromQpdf.keyLength,
      ...(p === undefined ? {} : { permissions: permissionsFromBits(p, revision) }),
      recipients: [],
      repaired,
    };
  }

  /** qpdf refused the handler: read the dictionary ourselves (or find it by scanning a damaged file). */
  private async nonStandardSecurity(file: string, lookup: EncryptLookup, stderr: string): Promise<SecurityInfo> {
    const dict = lookup.status === 'found' ? lookup.dict : await scanForEncryptDictionary(file, 'Adobe.PubSec').then((found) => (found.status === 'found' ? found.dict : undefined));
    const params = dict ? encryptionParameters(dict) : undefined;
    if (!params || params.filter !== 'Adobe.PubSec') {
      throw new PdfEngineError('unsupportedEncryption', `The PDF uses the encryption handler ${params?.filter ? `/${params.filter}` : '(unknown)'}, which is not supported.`, { detail: stderr });
    }
    return {
      kind: 'certificate',
      encrypted: true,
      hasOpenPassword: false,
      hasPermissionPassword: false,
      hasCertificate: true,
      filter: params.filter,
      ...(params.subFilter === undefined ? {} : { subFilter: params.subFilter }),
      keyAlgorithm: params.keyAlgorithm,
      keyLength: params.keyLength,
      ...(params.permissionBits === undefined ? {} : { permissions: permissionsFromBits(params.permissionBits) }),
      recipients: (await recipientsModule()).listRecipients(params.recipients),
      repaired: lookup.status !== 'found',
    };
  }

  async checkPassword(file: string, password: string): Promise<PasswordCheck> {
    const absolute = await readableFile(file);
    return this.checkPasswordOf(absolute, password, this.deadline());
  }

  private async checkPasswordOf(file: string, password: string, deadline: number): Promise<PasswordCheck> {
    if (!passableAsLine(password)) return 'wrong';
    const shown = await this.qpdf.raw(['--show-encryption', file], { password, deadline });
    if (shown.exitCode !== 0 && shown.exitCode !== 3) {
      if (UNSUPPORTED_FILTER.test(shown.stderr)) {
        const security = await this.securityOf(file, deadline);
        throw new PdfEngineError('certificateRequired', `The PDF is certificate encrypted (${security.filter}); it opens with a key pair, not a password.`);
      }
      throw classifyFailure(shown);
    }
    const text = shown.stdout.toString('utf8');
    if (NOT_ENCRYPTED.test(text)) return 'notEncrypted';
    if (OWNER_MATCHED.test(text)) return 'owner';
    if (USER_MATCHED.test(text)) return 'user';
    if (INCORRECT.test(text)) return 'wrong';
    // No detail: with an owner password qpdf prints the recovered user password of RC4-era files.
    throw new PdfEngineError('toolFailed', 'qpdf --show-encryption printed nothing recognisable');
  }

  async checkCertificate(file: string, certificate: string | Buffer, privateKey: string | Buffer, privateKeyPassword?: string): Promise<boolean> {
    const absolute = await readableFile(file);
    let lookup = await readEncryptDictionary(absolute);
    if (lookup.status === 'unreadable') lookup = await scanForEncryptDictionary(absolute, 'Adobe.PubSec');
    if (lookup.status !== 'found') return false;
    const params = encryptionParameters(lookup.dict);
    if (params.filter !== 'Adobe.PubSec') return false;
    return (await recipientsModule()).openEnvelopes(params.recipients, certificate, privateKey, privateKeyPassword).opened;
  }

  /** Security plus the password check; throws the errors a caller without the right credentials must see. */
  private async access(file: string, credentials: Credentials | undefined, deadline: number): Promise<Access> {
    const password = credentials?.password;
    const [security, check] = await Promise.all([
      this.securityOf(file, deadline),
      password === undefined || password === ''
        ? undefined
        : this.checkPasswordOf(file, password, deadline).catch((error: unknown) => {
            // A certificate-encrypted or unsupported file is reported by securityOf; anything else (timeout …) stands.
            if (error instanceof PdfEngineError && (error.kind === 'certificateRequired' || error.kind === 'unsupportedEncryption')) return undefined;
            throw error;
          }),
    ]);
    if (security.kind === 'certificate') {
      throw new PdfEngineError('certificateRequired', 'The PDF is certificate encrypted; qpdf cannot decrypt the public-key security handler.');
    }
    const works = check === 'owner' || check === 'user';
    if (security.kind === 'openPassword') {
      if (password === undefined || password === '') throw new PdfEngineError('passwordRequired', 'The PDF is protected by an open password.');
      if (!works) throw new PdfEngineError('passwordWrong', 'The password does not open the PDF.');
    }
    return { security, ...(works ? { password: password! } : {}) };
  }

  // ---- metadata ----

  async metadata(file: string, credentials?: Credentials): Promise<DocumentMetadataPdf> {
    const absolute = await readableFile(file);
    const deadline = this.deadline();
    const { size } = await stat(absolute);
    const { security, password } = await this.access(absolute, credentials, deadline);
    const call: QpdfCall = { deadline, ...(password === undefined ? {} : { password }) };

    // Every qpdf JSON run costs time in proportion to the file's object count, so a file of moderate
    // size is dumped whole (dictionaries only, no stream data) in one run; a larger one is read by
    // fetching the objects needed in batches.
    const objectCount = await readTrailerSize(absolute);
    let dumpAll = objectCount !== undefined && objectCount <= this.maxDumpObjects;
    // Not --json-key=attachments or =pagelabels: qpdf walks those trees without remembering nodes, and a
    // node listed twice per level keeps it busy for its whole time limit. They are read in-process (trees.ts).
    const mainArgs = ['--json=2', '--json-key=acroform', '--json-key=qpdf'];
    const mainJson = async (): Promise<QDict> => {
      try {
        return parseJson((await this.qpdf.run([...mainArgs, ...(dumpAll ? [] : ['--json-object=trailer']), absolute], { ...call, maxOutputBytes: this.maxJsonBytes })).stdout);
      } catch (error) {
        // A trailer /Size that understates the object count: read selectively instead.
        if (!(dumpAll && error instanceof PdfEngineError && error.kind === 'outputTooLarge')) throw error;
        dumpAll = false;
        return parseJson((await this.qpdf.run([...mainArgs, '--json-object=trailer', absolute], { ...call, maxOutputBytes: this.maxJsonBytes })).stdout);
      }
    };
    // The pages as the tree really has them (never the declared /Count), listed up to the cap; not
    // qpdf's `--json-key=pages`, which follows outline items and loops on an outline cycle.
    const [listing, main] = await Promise.all([listPages(this.qpdf, absolute, call, { maxRefs: this.maxPages }), mainJson()]);
    const npages = listing.count;
    const pageRefs = listing.refs;
    const qpdfKey = asArray(main.qpdf);
    const headerVersion = asDict(qpdfKey?.[0])?.pdfversion;
    const objects = asDict(qpdfKey?.[1]) ?? {};
    const trailer = asDict(asDict(objects.trailer)?.value) ?? {};

    const fetcher = new ObjectFetcher(this.qpdf, absolute, call, 2000, this.maxJsonBytes);
    fetcher.absorb(objects, dumpAll);
    const rootRef = isRef(trailer['/Root']) ? trailer['/Root'] : undefined;
    const infoRef = trailer['/Info'];
    await fetcher.fetch([rootRef, infoRef].filter(isRef));
    const root = asDict(fetcher.peek(rootRef)) ?? {};

    // Pages, then their ancestors (for inherited boxes and rotation), with the catalog's indirect members alongside.
    const catalogRefs = ['/ViewerPreferences', '/AcroForm', '/OpenAction', '/Perms', '/Lang', '/Version', '/PageLayout', '/PageMode', '/NeedsRendering'].map((key) => root[key]).filter(isRef);
    const info = asDict(fetcher.peek(infoRef));
    const infoRefs = Object.values(info ?? {}).filter(isRef);
    await fetcher.fetch([...pageRefs, ...catalogRefs, ...infoRefs]);
    for (let depth = 0; depth < 64; depth++) {
      const parents = unfetchedAncestors(fetcher, pageRefs);
      if (parents.length === 0) break;
      await fetcher.fetch(parents);
    }
    const boxKeys = ['/MediaBox', '/CropBox', '/BleedBox', '/TrimBox', '/ArtBox', '/Rotate'];
    const indirectBoxes = new Set<string>();
    for (const ref of pageRefs) {
      for (const node of ancestry(fetcher, ref)) for (const key of boxKeys) if (isRef(node[key])) indirectBoxes.add(node[key] as string);
    }
    await fetcher.fetch(indirectBoxes);

    const acroFormDict = asDict(await fetcher.resolve(root['/AcroForm']));
    const fields = parseAcroFormFields(main.acroform);
    await this.fetchChoiceFields(fetcher, fields);
    fillChoiceOptions(fields, fetcher, defaultValues(main.acroform));
    // The widgets' rectangles (Metadata_Field.annotation): already there when the file was dumped whole.
    await fetcher.fetch(widgetRefs(fields));
    await fetcher.fetch(widgetMemberRefs(fields, fetcher));
    fillWidgetAnnotations(fields, fetcher);
    const xmp = await this.xmp(absolute, root['/Metadata'], call);

    // Pages.
    const ranges = labelRanges(await pageLabels(fetcher, root['/PageLabels']));
    const pageNumbers = new Map(pageRefs.map((ref, index) => [ref, index + 1]));
    const pages: MetadataPage[] = pageRefs.map((ref, index) => {
      const inherited = (key: string): QValue | undefined => {
        for (const node of ancestry(fetcher, ref)) if (node[key] !== undefined) return fetcher.peek(node[key]);
        return undefined;
      };
      const page = asDict(fetcher.peek(ref)) ?? {};
      const boxes = effectiveBoxes({
        media: inherited('/MediaBox'),
        crop: inherited('/CropBox'),
        bleed: fetcher.peek(page['/BleedBox']),
        trim: fetcher.peek(page['/TrimBox']),
        art: fetcher.peek(page['/ArtBox']),
      });
      return {
        number: index + 1,
        width: boxes.cropBox.width,
        height: boxes.cropBox.height,
        rotation: normaliseRotation(inherited('/Rotate')),
        label: pageLabel(ranges, index),
        objectKey: '',
        boxes,
      };
    });

    // Information.
    const resolvedInfo: QDict = {};
    for (const [key, value] of Object.entries(info ?? {})) resolvedInfo[key] = fetcher.peek(value) ?? null;
    const formType = formTypeOf(root, acroFormDict, fields, fetcher);
    const view = openView(await fetcher.resolve(root['/OpenAction']), (ref) => pageNumbers.get(ref));
    const information: MetadataInformation = {
      attachments: (await readNameTree(fetcher, asDict(await fetcher.resolve(root['/Names']))?.['/EmbeddedFiles'])).size,
      description: description(resolvedInfo, xmp.creatorTool),
      docMDP: await docMdp(fetcher, root),
      encrypted: security.encrypted,
      fileSize: size,
      formType,
      initialPage: view.initialPage,
      initialView: initialView(fetcher.peek(root['/PageMode'])),
      language: asText(fetcher.peek(root['/Lang'])) ?? '',
      magnification: view.magnification,
      magnificationZoom: view.magnificationZoom,
      objectKey: '',
      pageLayout: pageLayout(fetcher.peek(root['/PageLayout'])),
      pages: npages,
      pdfa: { part: xmp.pdfaPart, conformance: xmp.pdfaConformance },
      portfolio: root['/Collection'] !== undefined && root['/Collection'] !== null,
      signatures: fields.filter((field) => field.signed).length,
      version: effectiveVersion(typeof headerVersion === 'string' ? headerVersion : undefined, fetcher.peek(root['/Version'])),
      viewerPreferences: viewerPreferences(asDict(fetcher.peek(root['/ViewerPreferences']))),
    };

    const permissions: Permissions = security.permissions ?? { ...ALL_PERMISSIONS };
    return {
      metadataType: 'pdf',
      information,
      pages: { page: pages, truncated: pages.length < npages },
      security: {
        ...permissions,
        password: {
          hasAsymmetricEncryption: security.hasCertificate,
          hasOpenPassword: security.hasOpenPassword,
          hasPermissionPassword: security.hasPermissionPassword,
          keyAlgorithm: security.keyAlgorithm,
          keyLength: security.keyLength,
        },
      },
      form: {
        formType,
        defaultAppearance: asText(acroFormDict?.['/DA']) ?? '',
        needAppearances: asBoolean(asDict(main.acroform)?.needappearances) ?? false,
        objectKey: '',
        field: fields.map((parsed) => parsed.field),
      },
    };
  }

  // ---- form fields ----

  async formFields(file: string, credentials?: Credentials): Promise<FormFieldsResult> {
    const absolute = await readableFile(file);
    const deadline = this.deadline();
    const { password } = await this.access(absolute, credentials, deadline);
    const call: QpdfCall = { deadline, ...(password === undefined ? {} : { password }) };
    const main = parseJson((await this.qpdf.run(['--json=2', '--json-key=acroform', '--json-key=qpdf', '--json-object=trailer', absolute], { ...call, maxOutputBytes: this.maxJsonBytes })).stdout);
    const trailer = asDict(asDict(asDict(asArray(main.qpdf)?.[1])?.trailer)?.value) ?? {};
    const fetcher = new ObjectFetcher(this.qpdf, absolute, call, 2000, this.maxJsonBytes);
    const root = asDict(await fetcher.resolve(trailer['/Root'])) ?? {};
    const acroFormDict = asDict(await fetcher.resolve(root['/AcroForm']));
    const fields = parseAcroFormFields(main.acroform);
    await this.fetchChoiceFields(fetcher, fields);
    fillChoiceOptions(fields, fetcher, defaultValues(main.acroform));
    const formType = formTypeOf(root, acroFormDict, fields, fetcher);
    return {
      formType,
      xfa: formType === 'staticXFA' || formType === 'dynamicXFA',
      fields: fields.map(({ field, values }) => ({
        fullyQualifiedName: field.fullyQualifiedName,
        dataXPath: '',
        type: field.type,
        value: field.content,
        values,
      })),
      xfdf: toXfdf(fields),
    };
  }

  // ---- helpers ----

  private deadline(): number {
    return Date.now() + this.timeoutMs;
  }

  private async fetchChoiceFields(fetcher: ObjectFetcher, fields: ParsedField[]): Promise<void> {
    const refs = fields.filter((f) => f.field.type === 'comboBox' || f.field.type === 'listBox').flatMap((f) => f.candidates);
    await fetcher.fetch(refs);
    // /Opt itself (or its items) may be indirect.
    const more: string[] = [];
    for (const ref of refs) {
      const opt = asDict(fetcher.peek(ref))?.['/Opt'];
      if (isRef(opt)) more.push(opt);
      for (const item of asArray(opt) ?? []) if (isRef(item)) more.push(item);
    }
    await fetcher.fetch(more);
  }

  /** The decoded XMP packet of the catalog's /Metadata stream (bounded), or empty facts. */
  private async xmp(file: string, metadata: QValue | undefined, call: QpdfCall): Promise<ReturnType<typeof readXmp>> {
    const empty = { pdfaPart: '', pdfaConformance: '', creatorTool: '' };
    if (!isRef(metadata)) return empty;
    const objectId = metadata.replace(/ R$/, '').replace(' ', ',');
    try {
      const result = await this.qpdf.run(['--show-object=' + objectId, '--filtered-stream-data', file], {
        ...call,
        maxOutputBytes: this.maxXmpBytes,
        allowTruncated: true,
      });
      return readXmp(result.stdout);
    } catch (error) {
      // A broken or undecodable metadata stream leaves PDF/A unknown; it does not make the PDF unreadable.
      if (error instanceof PdfEngineError && (error.kind === 'timeout' || error.kind === 'toolMissing')) throw error;
      return empty;
    }
  }
}

/** Parameters qpdf prints with --show-encryption (used when the dictionary could not be read directly). */
function qpdfEncryptionText(text: string): { revision?: number; p?: number; keyAlgorithm: 'aes' | 'rc4'; keyLength: number } {
  const revision = /^R = (\d+)/m.exec(text)?.[1];
  const p = /^P = (-?\d+)/m.exec(text)?.[1];
  const method = /^stream encryption method: (\S+)/m.exec(text)?.[1];
  const r = revision === undefined ? undefined : Number(revision);
  let keyAlgorithm: 'aes' | 'rc4' = 'rc4';
  let keyLength = r === 2 ? 40 : 128;
  if (method === 'AESv3') {
    keyAlgorithm = 'aes';
    keyLength = 256;
  } else if (method === 'AESv2') {
    keyAlgorithm = 'aes';
    keyLength = 128;
  }
  return { ...(r === undefined ? {} : { revision: r }), ...(p === undefined ? {} : { p: Number(p) }), keyAlgorithm, keyLength };
}

/** The page dictionary and its ancestors (nearest first), as far as they were fetched; loops are cut. */
function ancestry(fetcher: ObjectFetcher, ref: string): QDict[] {
  const chain: QDict[] = [];
  const seen = new Set<string>();
  let current: QValue | undefined = ref;
  while (isRef(current) && !seen.has(current) && chain.length < 64) {
    seen.add(current);
    const node = asDict(fetcher.get(current));
    if (!node) break;
    chain.push(node);
    current = node['/Parent'];
  }
  return chain;
}

/** Ancestors (/Parent chain) of the given pages that have not been fetched yet: the next batch to fetch. */
function unfetchedAncestors(fetcher: ObjectFetcher, refs: readonly string[]): string[] {
  const out = new Set<string>();
  for (const ref of refs) {
    const seen = new Set<string>();
    let current: QValue | undefined = ref;
    while (isRef(current) && !seen.has(current) && seen.size < 64) {
      seen.add(current);
      if (!fetcher.has(current)) {
        out.add(current);
        break;
      }
      current = asDict(fetcher.get(current))?.['/Parent'];
    }
  }
  return [...out];
}

/** The /PageLabels number tree as qpdf's JSON gives it ({index, label} with the label's entries resolved). */
async function pageLabels(fetcher: ObjectFetcher, root: QValue | undefined): Promise<QValue> {
  const entries = await readNumberTree(fetcher, root);
  await fetcher.fetch(entries.map((entry) => entry.value).filter(isRef));
  return entries.map(({ key, value }) => {
    const label: QDict = {};
    for (const [name, item] of Object.entries(asDict(fetcher.peek(value)) ?? {})) label[name] = fetcher.peek(item) ?? null;
    return { index: key, label };
  });
}

function formTypeOf(root: QDict, acroForm: QDict | undefined, fields: readonly ParsedField[], fetcher: ObjectFetcher): FormType {
  if (acroForm && acroForm['/XFA'] !== undefined && acroForm['/XFA'] !== null) {
    // Dynamic XFA forms ask the viewer to render them (/NeedsRendering true in the catalog).
    return asBoolean(fetcher.peek(root['/NeedsRendering'])) === true ? 'dynamicXFA' : 'staticXFA';
  }
  return fields.length > 0 ? 'acroForm' : 'none';
}

/** The DocMDP permission of a certification signature (catalog /Perms /DocMDP → /Reference → /TransformParams /P). */
async function docMdp(fetcher: ObjectFetcher, root: QDict): Promise<MetadataInformation['docMDP']> {
  if (root['/Perms'] === undefined) return 'none';
  const perms = asDict(await fetcher.resolve(root['/Perms']));
  const signature = asDict(await fetcher.resolve(perms?.['/DocMDP']));
  const references = asArray(await fetcher.resolve(signature?.['/Reference'])) ?? [];
  for (const item of references) {
    const reference = asDict(await fetcher.resolve(item));
    if (asName(reference?.['/TransformMethod']) !== 'DocMDP') continue;
    const params = asDict(await fetcher.resolve(reference?.['/TransformParams']));
    const p = asNumber(await fetcher.resolve(params?.['/P'])) ?? 2;
    return p === 1 ? 'noChangesAllowed' : p === 3 ? 'formFillingSignaturesAnnotations' : 'formFillingSignatures';
  }
  return 'none';
}

/** The absolute path of an existing regular file, or `fileUnreadable`. */
async function readableFile(file: string): Promise<string> {
  const absolute = path.resolve(file);
  try {
    const info = await stat(absolute);
    if (!info.isFile()) throw new Error('not a regular file');
  } catch (error) {
    throw new PdfEngineError('fileUnreadable', 'The file does not exist or is not a regular file.', { cause: error });
  }
  return absolute;
}
