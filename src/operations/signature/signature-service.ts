import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import type { Config } from '../../config/load.js';
import { QuireError } from '../../core/errors.js';
import { fileTypeByKey, type FileType } from '../../core/file-types.js';
import type { PdfStructureTool } from '../../engines/contracts.js';
import { AddressPolicy } from '../../engines/net/address-policy.js';
import { attachTimeStamp, buildCms } from '../../engines/signature/cms.js';
import { requestTimeStamp, requestTimeStampOfImprint, tokenCertificates, tsaDigest, type TsaOptions } from '../../engines/signature/tsa.js';
import { collectValidationData, type RevocationOptions, type ValidationData } from '../../engines/signature/revocation.js';
import { vriKey, writeDssUpdate } from '../../engines/signature/dss.js';
import { buildAppearance, decodeImage } from '../../engines/signature/appearance.js';
import { clearSignatures } from '../../engines/signature/clear.js';
import { placeAppearance, readSignableDocument, uniqueFieldName, type SignableDocument } from '../../engines/signature/document.js';
import { SignatureEngineError } from '../../engines/signature/errors.js';
import { DEFAULT_CONTENTS_BYTES, writeSignatureUpdate, type AppearanceObjects } from '../../engines/signature/update-writer.js';
import type { Session } from '../../sessions/session.js';
import type { DocumentRecord } from '../../storage/document-store.js';
import { fromEngine } from '../engine-errors.js';
import { runInPlace, type DocumentStep, type Transaction, type TransactionDeps } from '../transaction/document-transaction.js';
import { signatureWithDefaults } from './defaults.js';
import { SigningKeyStores, type SigningKey } from './key-stores.js';
import type { AddSignatureOptions, SignatureOptions, SignatureRequest } from './signature.schema.js';

const PDF = fileTypeByKey('pdf');

const DOC_MDP: Record<AddSignatureOptions['certificationLevel'], 1 | 2 | 3 | undefined> = {
  none: undefined,
  noChanges: 1,
  formFillingAndSignatures: 2,
  formFillingAndSignaturesAndAnnotations: 3,
};

export interface SignatureEngines {
  qpdf: PdfStructureTool;
}

/**
 * `POST signature/{documentId}` (reference §10.3): `add` signs the stored PDF with a PAdES B-B
 * signature (engines/signature) as an incremental update, on the document transaction: the stored
 * document changes only when the signed file is complete. Encrypted PDFs are refused (a decrypt and
 * re-encrypt would rewrite the file and break every earlier signature; see docs/signature.md).
 */
export class SignatureService {
  constructor(
    private readonly deps: TransactionDeps,
    private readonly engines: SignatureEngines,
    readonly keyStores: SigningKeyStores,
    private readonly timeoutMs: number,
    /** The time-stamp authority of B-T signatures; undefined: B-B. */
    private readonly tsaOf: () => TsaOptions | undefined = () => undefined,
    /** Revocation checking of B-LT signatures; undefined: no DSS. */
    private readonly revocation?: RevocationOptions,
    /** B-LTA: a document time-stamp after the DSS. */
    private readonly documentTimestamp = false,
  ) {}

  /** The time-stamp authority of B-T signatures as configured now; undefined: B-B. */
  private get tsa(): TsaOptions | undefined {
    return this.tsaOf();
  }

  /** Builds the service from the configuration (signature.*, network.* for the authority's address). */
  static create(deps: TransactionDeps, engines: SignatureEngines, config: Pick<Config, 'signature' | 'network' | 'dataDir'>): SignatureService {
    const { revocation } = config.signature;
    const policy = new AddressPolicy(config.network);
    // Read at each call: the configuration administration changes signature.tsa live.
    const tsaOptions = (): TsaOptions | undefined => {
      const tsa = config.signature.tsa;
      return tsa.url ? { url: tsa.url, hash: tsa.hashAlgorithm, user: tsa.user, password: tsa.password, timeoutMs: Math.round(tsa.timeout * 1000), policy } : undefined;
    };
    const revocationOptions: RevocationOptions | undefined =
      revocation.check === 'off' ? undefined : { check: revocation.check, required: revocation.required, timeoutMs: Math.round(revocation.timeout * 1000), policy };
    return new SignatureService(deps, engines, new SigningKeyStores(config), Math.round(config.signature.timeout * 1000), tsaOptions, revocationOptions, config.signature.documentTimestamp);
  }

  async run(session: Session, documentId: string, request: SignatureRequest): Promise<DocumentRecord> {
    const options = request.signature;
    if (!options.add && !options.clear) throw new QuireError('PARAMETER', 'Invalid parameter signature: give signature.add (to sign) or signature.clear (to remove signatures).');
    if (options.add && options.clear) throw new QuireError('PARAMETER', 'Invalid parameter signature: give either signature.add or signature.clear, not both.');
    const { record } = await runInPlace(
      this.deps,
      {
        session,
        documentId,
        operation: 'signature',
        password: request.password,
        deadline: { timeoutMs: this.timeoutMs },
        plan: signableInput,
      },
      async (tx, input) => {
        const output = tx.scratch.file('pdf');
        await this.step().run(input.path, output, options, tx);
        return { file: { path: output, type: PDF, pdf: true } };
      },
    );
    return record;
  }

  /** The signing step: the web service's, and the one a converter call nests (`converter.signature`). */
  step(): DocumentStep<SignatureOptions> {
    return {
      run: async (input, output, given, tx) => {
        // The web service's options come validated with their defaults; a nested step's as the client sent them.
        const options = signatureWithDefaults(given);
        if (options.clear) {
          try {
            await clearSignatures(this.engines.qpdf, input, output, options.clear.flatten, tx.scratch.file('json'), { deadline: tx.deadline.at });
          } catch (error) {
            throw mapSignatureError(error);
          }
          return;
        }
        if (!options.add) throw new QuireError('PARAMETER', 'Invalid parameter signature: give signature.add (to sign) or signature.clear (to remove signatures).');
        await this.add(input, output, options.add, tx);
      },
    };
  }

  private async add(input: string, output: string, add: AddSignatureOptions, tx: Transaction): Promise<void> {
    const signer = add.signer ? callKey(add.signer.keyPair) : await this.keyStores.signingKey(tx.session, add.keyName, add.keyPassword);
    const certificate = new X509Certificate(signer.chain[0]!);
    const commonName = /CN=([^\n]+)/.exec(certificate.subject)?.[1] ?? '';
    try {
      const doc = await readSignableDocument(this.engines.qpdf, input, { deadline: tx.deadline.at });
      const page = add.appearance?.page ?? 1;
      if (page > doc.pageRefs.length) {
        throw new QuireError('SIGNATURE_PAGE', `Invalid parameter signature.add.appearance.page: page ${page} does not exist (the document has ${doc.pageRefs.length}).`);
      }
      const visible = await this.appearance(doc, page, add, certificate);
      if (doc.damaged)
        throw new QuireError(
          'INVALID_PDF',
          'signature: the PDF is damaged (qpdf had to repair it): repair it first (e.g. a toolbox call), then sign; an incremental update of a broken file would not be valid.',
        );
      if (this.documentTimestamp && !this.tsa)
        throw new QuireError('SIGNATURE_TIMESTAMP', 'signature: signature.documentTimestamp is on, but no time-stamp authority is configured (signature.tsa.url).');
      // B-LT/B-LTA: the signed revision goes to a scratch file; the last update (DSS, document time-stamp) makes the output.
      const signed = this.revocation || this.documentTimestamp ? tx.scratch.file('pdf') : output;
      let validation: { data: ValidationData; cms: Buffer } | undefined;
      await writeSignatureUpdate(
        doc,
        signed,
        {
          fieldName: uniqueFieldName(add.fieldName || 'Signature1', doc.fieldNames),
          reason: add.reason,
          location: add.location,
          contact: add.contact,
          name: commonName,
          signingTime: new Date(),
          certificationLevel: DOC_MDP[add.certificationLevel],
          page,
          rect: visible?.rect ?? [0, 0, 0, 0],
          ...(visible ? { appearance: visible.objects } : {}),
        },
        async (digest) => {
          const cms = buildCms(digest, signer);
          // B-T: a signature-time-stamp over the signature value, as an unsigned attribute.
          const token = this.tsa ? await requestTimeStamp(cms.signatureValue, this.tsa) : undefined;
          const der = token ? attachTimeStamp(digest, signer, cms.signatureValue, token) : cms.der;
          // B-LT: the status of the signer's and the authority's chains, after the signature exists; a revoked certificate ends the call here.
          if (this.revocation) validation = { data: await collectValidationData([...signer.chain, ...(token ? tokenCertificates(token) : [])], this.revocation), cms: der };
          return der;
        },
      );
      let current = signed;
      if (this.revocation && validation) {
        const signedDoc = await readSignableDocument(this.engines.qpdf, signed, { deadline: tx.deadline.at });
        // The /Contents string: the CMS, then the zeros of the reserved room.
        const contents = Buffer.concat([validation.cms, Buffer.alloc(DEFAULT_CONTENTS_BYTES - validation.cms.length)]);
        current = this.documentTimestamp ? tx.scratch.file('pdf') : output;
        await writeDssUpdate(signedDoc, current, vriKey(contents), validation.data);
      }
      if (this.documentTimestamp && this.tsa) await this.addDocumentTimeStamp(current, output, this.tsa, tx);
    } catch (error) {
      throw mapSignatureError(error);
    }
  }

  /** B-LTA: an invisible document time-stamp field over the whole of `input` (its DSS included). */
  private async addDocumentTimeStamp(input: string, output: string, tsa: TsaOptions, tx: Transaction): Promise<void> {
    const doc = await readSignableDocument(this.engines.qpdf, input, { deadline: tx.deadline.at });
    await writeSignatureUpdate(
      doc,
      output,
      {
        fieldName: uniqueFieldName('DocTimeStamp1', doc.fieldNames),
        reason: '',
        location: '',
        contact: '',
        name: '',
        signingTime: new Date(),
        certificationLevel: undefined,
        page: 1,
        rect: [0, 0, 0, 0],
        documentTimeStamp: { digest: tsaDigest(tsa.hash) },
      },
      (imprint) => requestTimeStampOfImprint(imprint, tsa),
    );
  }

  /** The visible field: where on the page, and what it shows; undefined without a position (invisible). */
  private async appearance(
    doc: SignableDocument,
    page: number,
    add: AddSignatureOptions,
    certificate: X509Certificate,
  ): Promise<{ rect: [number, number, number, number]; objects: AppearanceObjects } | undefined> {
    const appearance = add.appearance;
    const position = appearance?.position;
    if (!appearance || !position) return undefined;
    const unit = UNITS[position.metrics];
    const [width, height] = [position.width * unit, position.height * unit];
    if (width <= 0 || height <= 0) return undefined;
    const { rect, rotate } = await placeAppearance(doc, page, { x: position.x * unit, y: position.y * unit, width, height, coordinates: position.coordinates });
    const subject = distinguishedName(certificate.subject);
    const commonName = subject.get('CN') ?? '';
    const name = appearance.name || (appearance.showCommonName ? commonName : '');
    const lines = appearance.identifier ? appearance.identifier.split(/\r?\n/) : identifierLines(subject, certificate, appearance.identifierElements);
    let image;
    if (appearance.image) {
      const data = appearance.image.data;
      if (data.source === 'uri') throw new QuireError('PARAMETER', 'Invalid parameter signature.add.appearance.image.data.source: "uri" is not supported; send the image in value (Base64).');
      const bytes = Buffer.from(data.value, 'base64');
      if (bytes.length === 0) throw new QuireError('PARAMETER', 'Invalid parameter signature.add.appearance.image.data.value: must hold the image (Base64).');
      if (bytes.length > MAX_IMAGE_BYTES) throw new QuireError('PARAMETER', `Invalid parameter signature.add.appearance.image.data.value: the image is larger than ${MAX_IMAGE_BYTES} bytes.`);
      image = await decodeImage(bytes, appearance.image.position, appearance.image.opacity);
    }
    const objects = await buildAppearance({ width, height, name, lines, rotate, ...(image ? { image } : {}) });
    return { rect, objects };
  }
}

/** Points per unit of `Operation_Metrics` (px at 96 per inch, as CSS). */
const UNITS: Record<'pt' | 'pc' | 'px' | 'mm' | 'in', number> = { pt: 1, pc: 12, px: 0.75, mm: 72 / 25.4, in: 72 };

const MAX_IMAGE_BYTES = 10 * 1024 * 1024;

/** The attributes of an X.509 subject as node prints it ("C=DE\nO=…\nCN=…"). */
function distinguishedName(subject: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const line of subject.split('\n')) {
    const at = line.indexOf('=');
    if (at > 0 && !map.has(line.slice(0, at))) map.set(line.slice(0, at), line.slice(at + 1));
  }
  return map;
}

/** The identifier area from the certificate, as `identifierElements` selects (every element by default). */
function identifierLines(subject: Map<string, string>, certificate: X509Certificate, elements: NonNullable<AddSignatureOptions['appearance']>['identifierElements']): string[] {
  const show = {
    showCommonName: true,
    showCountry: true,
    showDate: true,
    showLocal: true,
    showMail: true,
    showName: true,
    showOrganisationName: true,
    showOrganisationUnit: true,
    showSignedBy: true,
    showState: true,
    ...elements,
  };
  const commonName = subject.get('CN') ?? '';
  const lines: string[] = [];
  const label = show.showSignedBy ? elements?.textSignedBy || 'Digitally signed by' : '';
  const signer = show.showName ? commonName : '';
  if (label || signer) lines.push([label, signer].filter(Boolean).join(' '));
  const mail = subject.get('emailAddress') ?? /email:([^,\s]+)/.exec(certificate.subjectAltName ?? '')?.[1];
  const parts: [boolean, string, string | undefined][] = [
    [show.showCommonName, 'CN', commonName || undefined],
    [show.showOrganisationName, 'O', subject.get('O')],
    [show.showOrganisationUnit, 'OU', subject.get('OU')],
    [show.showLocal, 'L', subject.get('L')],
    [show.showState, 'ST', subject.get('ST')],
    [show.showCountry, 'C', subject.get('C')],
    [show.showMail, 'E', mail],
  ];
  for (const [wanted, key, value] of parts) if (wanted && value) lines.push(`${key}=${value}`);
  if (show.showDate) lines.push(`Date: ${new Date().toISOString().replace('T', ' ').slice(0, 19)} UTC`);
  return lines;
}

/** The engine's refusals as the catalogue's errors; qpdf's through the shared table. */
function mapSignatureError(error: unknown): unknown {
  if (error instanceof SignatureEngineError) {
    switch (error.kind) {
      case 'pageOutOfRange':
        return new QuireError('SIGNATURE_PAGE', `signature: ${error.message}.`);
      case 'certified':
      case 'encrypted':
        return new QuireError('SIGNATURE_REFUSED', `signature: ${error.message}${error.kind === 'encrypted' ? ': remove its protection first (toolbox security), then sign' : ''}.`);
      case 'key':
        return new QuireError('SIGNATURE_KEY', `signature: ${error.message}.`);
      case 'fieldName':
        return new QuireError('PARAMETER', `Invalid parameter signature.add.fieldName: ${error.message}.`);
      case 'unreadable':
        return new QuireError('INVALID_PDF', `signature: ${error.message}.`);
      case 'timestamp':
        return new QuireError('SIGNATURE_TIMESTAMP', `signature: ${error.message}.`);
      case 'revoked':
        return new QuireError('SIGNATURE_REVOKED', `signature: ${error.message}.`);
      case 'revocation':
        return new QuireError('SIGNATURE_REVOCATION', `signature: ${error.message}.`);
      case 'image':
        return new QuireError('PARAMETER', `Invalid parameter signature.add.appearance.image: ${error.message}.`);
    }
  }
  return fromEngine(error);
}

/** `signer.keyPair`: a certificate (chain) and its private key sent with the call (PEM, or Base64 of PEM or DER). */
function callKey(keyPair: NonNullable<AddSignatureOptions['signer']>['keyPair']): SigningKey {
  const material = (field: string, data: { source: string; value: string }): Buffer | string => {
    if (data.source === 'uri') throw new QuireError('PARAMETER', `Invalid parameter signature.add.signer.keyPair.${field}.source: "uri" is not supported; send the key material in value.`);
    const value = data.value.trim();
    if (value === '') throw new QuireError('PARAMETER', `Invalid parameter signature.add.signer.keyPair.${field}.value: must hold the ${field}.`);
    if (value.includes('-----BEGIN')) return value;
    const bytes = Buffer.from(value, 'base64');
    const text = bytes.toString('latin1');
    return text.includes('-----BEGIN') ? text : bytes;
  };
  const certificate = material('certificate', keyPair.certificate);
  const keyMaterial = material('privateKey', keyPair.privateKey);
  let chain: Buffer[];
  try {
    chain =
      typeof certificate === 'string'
        ? [...certificate.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g)].map((m) => new X509Certificate(m[0]).raw)
        : [new X509Certificate(certificate).raw];
  } catch {
    throw new QuireError('SIGNATURE_KEY', 'signature: signer.keyPair.certificate is not a readable X.509 certificate.');
  }
  if (chain.length === 0) throw new QuireError('SIGNATURE_KEY', 'signature: signer.keyPair.certificate holds no certificate.');
  let key: KeyObject;
  try {
    const passphrase = keyPair.privateKey.password || undefined;
    key =
      typeof keyMaterial === 'string'
        ? createPrivateKey({ key: keyMaterial, format: 'pem', ...(passphrase ? { passphrase } : {}) })
        : createPrivateKey({ key: keyMaterial, format: 'der', type: 'pkcs8', ...(passphrase ? { passphrase } : {}) });
  } catch {
    // Never the key material or the password in the message.
    throw new QuireError('SIGNATURE_KEY', 'signature: signer.keyPair.privateKey cannot be read (PEM or PKCS#8 DER; encrypted keys need privateKey.password).');
  }
  if (!new X509Certificate(chain[0]!).checkPrivateKey(key)) throw new QuireError('SIGNATURE_KEY', 'signature: signer.keyPair.privateKey does not belong to its certificate.');
  return { chain, key };
}

export type SignatureConfig = Pick<Config, 'signature'>;

/** Signing needs a PDF (a conversion can sign its own result: converter.signature). */
function signableInput(_record: DocumentRecord, storedType: FileType): void {
  if (storedType.key !== 'pdf') throw new QuireError('PARAMETER', 'signature: the document is not a PDF (convert it first, or sign within the converter call).');
}
