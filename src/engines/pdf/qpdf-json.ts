import type { QpdfCall } from './qpdf.js';
import type { PdfStructureTool } from '../contracts.js';
import { PdfEngineError } from './errors.js';

/**
 * qpdf's JSON v2 object notation (qpdf manual, "qpdf JSON"): names are "/Name", strings "u:text"
 * (Unicode, already decoded and decrypted) or "b:hex" (bytes), references "N G R", numbers and
 * booleans as JSON. Objects selected with --json-object come as
 * `"obj:N G R": {"value": …}` or `{"stream": {"dict": …}}`.
 */

export type QValue = null | boolean | number | string | QValue[] | QDict;
export interface QDict {
  [key: string]: QValue;
}

const REF = /^(\d+) (\d+) R$/;

export function isRef(value: QValue | undefined): value is string {
  return typeof value === 'string' && REF.test(value);
}

export function asDict(value: QValue | undefined): QDict | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
}

export function asArray(value: QValue | undefined): QValue[] | undefined {
  return Array.isArray(value) ? value : undefined;
}

export function asNumber(value: QValue | undefined): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

export function asBoolean(value: QValue | undefined): boolean | undefined {
  return typeof value === 'boolean' ? value : undefined;
}

/** A name without its slash ("/Fit" → "Fit"); qpdf writes unrepresentable names as "n:/…". */
export function asName(value: QValue | undefined): string | undefined {
  if (typeof value !== 'string') return undefined;
  if (value.startsWith('/')) return value.slice(1);
  if (value.startsWith('n:/')) return value.slice(3);
  return undefined;
}

/** A text string: "u:" as is; "b:" bytes decoded as UTF-16BE (with BOM), UTF-8 (with BOM) or Latin-1. */
export function asText(value: QValue | undefined): string | undefined {
  if (typeof value !== 'string') return undefined;
  if (value.startsWith('u:')) return value.slice(2);
  if (value.startsWith('b:')) {
    const bytes = Buffer.from(value.slice(2), 'hex');
    if (bytes[0] === 0xfe && bytes[1] === 0xff)
      return Buffer.from(bytes.subarray(2, bytes.length - (bytes.length % 2)))
        .swap16()
        .toString('utf16le');
    if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return bytes.subarray(3).toString('utf8');
    return bytes.toString('latin1');
  }
  return undefined;
}

/** Text of a string, or the name of a name (form values can be either). */
export function asTextOrName(value: QValue | undefined): string | undefined {
  return asText(value) ?? asName(value);
}

/** The normalised "N G R" form of a reference given as "N" or "N G" or "N G R". */
export function refKey(num: number, gen = 0): string {
  return `${num} ${gen} R`;
}

/**
 * Fetches indirect objects by reference with `qpdf --json=2 --json-key=qpdf --json-object=…`, in
 * batches, and caches them. Each batch is one qpdf process, which opens the file and reads only the
 * objects asked for (plus the xref), so the cost does not grow with the file's size.
 */
export class ObjectFetcher {
  private readonly cache = new Map<string, QValue>();
  /** Refs asked for that the file does not have (cached as such). */
  private readonly missing = new Set<string>();
  /** The header version qpdf reported ("1.7"), from the first batch. */
  pdfVersion: string | undefined;
  invocations = 0;

  constructor(
    private readonly qpdf: PdfStructureTool,
    private readonly file: string,
    private readonly call: QpdfCall,
    private readonly batchSize = 2000,
    private readonly maxOutputBytes = 128 * 1024 * 1024,
  ) {}

  /** Set once the cache holds every object of the file (see `absorb`): nothing more to fetch. */
  private complete = false;

  has(ref: string): boolean {
    return this.complete || this.cache.has(ref) || this.missing.has(ref);
  }

  /**
   * Takes the objects of a `--json-key=qpdf` output (the second element of the "qpdf" array).
   * `complete` says the output held all objects of the file (no --json-object selection).
   */
  absorb(objects: QDict, complete: boolean): void {
    for (const [key, wrapper] of Object.entries(objects)) {
      const name = key.startsWith('obj:') ? key.slice(4) : key;
      const w = asDict(wrapper);
      if (!w) continue;
      const stream = asDict(w.stream);
      this.cache.set(name, stream ? (stream.dict ?? {}) : (w.value ?? null));
    }
    if (complete) this.complete = true;
  }

  /** The value of a fetched object (for a stream: its dictionary); undefined if not fetched or absent. */
  get(ref: string): QValue | undefined {
    return this.cache.get(ref);
  }

  /** Fetches the refs not fetched yet. Accepts "trailer" too. */
  async fetch(refs: Iterable<string>): Promise<void> {
    const wanted = [...new Set([...refs].filter((ref) => (ref === 'trailer' || isRef(ref)) && !this.has(ref)))];
    for (let i = 0; i < wanted.length; i += this.batchSize) {
      const batch = wanted.slice(i, i + this.batchSize);
      // The file path is absolute (the inspector resolves it), so it cannot be taken for an option.
      const args = ['--json=2', '--json-key=qpdf', ...batch.map((ref) => `--json-object=${ref}`), this.file];
      const result = await this.qpdf.run(args, { ...this.call, maxOutputBytes: this.maxOutputBytes });
      this.invocations++;
      const parsed = parseJson(result.stdout);
      const qpdfKey = asArray(parsed.qpdf);
      const header = asDict(qpdfKey?.[0]);
      if (this.pdfVersion === undefined && typeof header?.pdfversion === 'string') this.pdfVersion = header.pdfversion;
      this.absorb(asDict(qpdfKey?.[1]) ?? {}, false);
      for (const ref of batch) if (!this.cache.has(ref)) this.missing.add(ref);
    }
  }

  /** Follows a reference (fetching it when needed); other values come back as they are. */
  async resolve(value: QValue | undefined, depth = 0): Promise<QValue | undefined> {
    if (!isRef(value)) return value;
    if (depth > 16) return undefined;
    if (!this.has(value)) await this.fetch([value]);
    return this.resolve(this.cache.get(value), depth + 1);
  }

  /** Like `resolve` for values already fetched; never starts qpdf. */
  peek(value: QValue | undefined, depth = 0): QValue | undefined {
    if (!isRef(value)) return value;
    if (depth > 16) return undefined;
    return this.peek(this.cache.get(value), depth + 1);
  }
}

export function parseJson(stdout: Buffer): QDict {
  const text = stdout.toString('utf8');
  let value: QValue;
  try {
    value = JSON.parse(text) as QValue;
  } catch (first) {
    // qpdf 11.3 writes a real number as the file spells it, and PDF allows spellings JSON does not
    // ("4899.", ".5", "+3", "007"): a damaged file can make its output invalid JSON (issue 11).
    try {
      value = JSON.parse(normaliseNumbers(text)) as QValue;
    } catch {
      throw new PdfEngineError('invalidPdf', 'The PDF cannot be read: qpdf could not describe its objects.', { cause: first });
    }
  }
  const dict = asDict(value);
  if (!dict) throw new PdfEngineError('toolFailed', 'qpdf printed JSON that is not an object');
  return dict;
}

/** JSON text with every number token outside strings rewritten in JSON's spelling (null when it is no number). */
export function normaliseNumbers(text: string): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
      continue;
    }
    if (!(c === 0x2d || c === 0x2b || c === 0x2e || (c >= 0x30 && c <= 0x39))) continue;
    let end = i;
    while (end < text.length && /[0-9+\-.eE]/.test(text[end]!)) end++;
    const token = text.slice(i, end);
    const number = Number(token.startsWith('+') ? token.slice(1) : token);
    const spelled = Number.isFinite(number) ? JSON.stringify(number) : 'null';
    if (spelled !== token) {
      out += text.slice(from, i) + spelled;
      from = end;
    }
    i = end - 1;
  }
  return out + text.slice(from);
}
