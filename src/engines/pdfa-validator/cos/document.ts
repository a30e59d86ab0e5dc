/**
 * The COS document: the raw file facts ISO 19005 checks (header, EOF, xref syntax, trailers, IDs,
 * linearization) and the object graph (getObject, resolve, decodeStream) the PD* model is built on.
 *
 * Reading order: header → last `%%EOF`/`startxref` → the xref chain (/Prev, /XRefStm; cycles and
 * length bounded) → merged entries. When the chain yields nothing usable (no section, no /Root), the
 * xref is rebuilt by scanning for `n g obj` and `trailer`; an entry whose offset does not hold its
 * object falls back to the scan too. Nothing here throws on bad bytes; see `problems` and `limitsHit`.
 */
import { readFile, stat } from 'node:fs/promises';
import { CosError } from './errors.js';
import { decodeChain, type DecodeResult, filterChain } from './filters.js';
import { readEof, readHeader, type EofFacts, type HeaderFacts } from './header.js';
import { type ParsedIndirect, readIndirectAt, readObjectHeader } from './indirect.js';
import { type CosLimits, DEFAULT_COS_LIMITS } from './limits.js';
import { CosParser, newParseEnv, note, type ParseEnv } from './parser.js';
import { type ScannedObject, scanKeyword, scanObjects } from './scan.js';
import { COS_NULL, type CosDict, type CosIndirect, type CosStream, type CosValue, dictOf } from './types.js';
import { readXrefStream, readXrefTable, trailerInt, type XrefEntry, type XrefSection } from './xref.js';

export type CosInput = Buffer | Uint8Array | string;

/** Opens a file (path) or bytes. Refuses only what is larger than `maxFileBytes` or unreadable; broken PDF syntax still opens. */
export async function openCosDocument(input: CosInput, limits: Partial<CosLimits> = {}): Promise<CosDocument> {
  const all: CosLimits = { ...DEFAULT_COS_LIMITS, ...limits };
  if (typeof input !== 'string') return openCosBytes(input, all);
  let size: number;
  try {
    size = (await stat(input)).size;
  } catch (error) {
    throw new CosError('fileUnreadable', 'The file cannot be read', { cause: error });
  }
  if (size > all.maxFileBytes) throw new CosError('fileTooLarge', `The file has ${size} bytes; the validator reads at most ${all.maxFileBytes}`);
  let bytes: Buffer;
  try {
    bytes = await readFile(input);
  } catch (error) {
    throw new CosError('fileUnreadable', 'The file cannot be read', { cause: error });
  }
  return openCosBytes(bytes, all);
}

export function openCosBytes(input: Buffer | Uint8Array, limits: Partial<CosLimits> = {}): CosDocument {
  const all: CosLimits = { ...DEFAULT_COS_LIMITS, ...limits };
  if (input.length > all.maxFileBytes) throw new CosError('fileTooLarge', `The file has ${input.length} bytes; the validator reads at most ${all.maxFileBytes}`);
  const buf = Buffer.isBuffer(input) ? input : Buffer.from(input.buffer, input.byteOffset, input.length);
  return new CosDocument(buf, all);
}

interface ObjectStreamIndex {
  readonly data: Buffer;
  /** Object number → offset in `data` (First already added). */
  readonly offsets: Map<number, number>;
  /** The i-th pair's object number and offset, for entries that name an index. */
  readonly pairs: ReadonlyArray<readonly [number, number]>;
}

export class CosDocument {
  readonly bytes: Buffer;
  readonly limits: CosLimits;
  readonly header: HeaderFacts;
  readonly eof: EofFacts;
  /** The sections of the xref chain, newest first (the one `startxref` names first); /XRefStm sections of hybrid files follow their table. */
  readonly xrefSections: XrefSection[] = [];
  /** The xref was rebuilt by scanning the file (the chain was missing or unusable). */
  readonly reconstructed: boolean;
  /** All trailer keys, newer sections' keys winning (what a reader uses for /Root, /Info, /Encrypt). */
  readonly trailer: CosDict;
  /** The trailer of the section `startxref` names: veraPDF's "last" trailer (for a linearized file, the first-page trailer). */
  readonly lastTrailer: CosDict | null;
  /** The trailer of the first xref section in file order: the first-page trailer of a linearized file. */
  readonly firstPageTrailer: CosDict | null;
  /** The linearization parameter dictionary when the first object in the file has /Linearized. */
  readonly linearization: CosDict | null;
  /** Linearized per ISO 32000-1 Annex F: a linearization dictionary whose /L equals the file length (an update after linearizing breaks it, F.3.3). */
  readonly isLinearized: boolean;
  readonly env: ParseEnv;

  private readonly entries = new Map<number, XrefEntry>();
  private readonly cache = new Map<number, CosIndirect | null>();
  private readonly resolving = new Set<number>();
  private readonly objectStreams = new Map<number, ObjectStreamIndex | null>();
  private scanned: Map<number, ScannedObject> | null = null;
  private readonly hybridStreams = new Set<XrefSection>();
  /** A section of the chain (after the first) could not be read. */
  private chainBroken = false;
  private decodedTotal = 0;

  constructor(bytes: Buffer, limits: CosLimits) {
    this.bytes = bytes;
    this.limits = limits;
    this.env = newParseEnv(limits);
    this.header = readHeader(bytes);
    this.eof = readEof(bytes);
    this.readChain();
    let trailer = this.mergeTrailers();
    let reconstructed = false;
    if (this.chainBroken) {
      // Part of the chain is unreadable (a /Prev to nowhere): objects only the lost sections defined are found by scanning.
      let added = 0;
      for (const o of this.scan().values()) {
        if (this.entries.has(o.num)) continue;
        this.entries.set(o.num, { type: 1, offset: o.offset, gen: o.gen });
        added++;
      }
      if (added > 0) {
        this.cache.clear(); // lookups made while reading the chain may have cached a null for them
        note(this.env, `${added} objects missing from the readable xref sections were found by scanning`);
      }
    }
    if (this.entries.size === 0 || resolveDictSync(this, trailer.entries.get('Root')) === null) {
      note(this.env, this.xrefSections.length === 0 ? 'no readable cross-reference section: rebuilt by scanning' : 'cross-reference data has no usable /Root: rebuilt by scanning');
      trailer = this.reconstruct(trailer);
      reconstructed = true;
    }
    this.reconstructed = reconstructed;
    this.trailer = trailer;
    this.lastTrailer = this.xrefSections[0]?.trailer ?? (reconstructed ? trailer : null);
    // A hybrid file's /XRefStm streams supplement their table: they are not trailers of their own.
    const byOffset = this.xrefSections.filter((s) => !this.hybridStreams.has(s)).sort((a, b) => a.offset - b.offset);
    this.firstPageTrailer = byOffset[0]?.trailer ?? null;
    this.linearization = this.readLinearization();
    const l = this.linearization?.entries.get('L');
    this.isLinearized = l?.kind === 'int' && l.value === bytes.length;
  }

  /** What could not be read completely: names of limits reached ('maxDepth', 'maxTokens', 'maxObjects', 'maxXrefSections', 'maxTotalDecodedBytes'). */
  get limitsHit(): ReadonlySet<string> {
    return this.env.limitsHit;
  }

  /** Notes on broken syntax met so far (capped): for reports and debugging, not for verdicts. */
  get problems(): readonly string[] {
    return this.env.problems;
  }

  /** The merged cross-reference entries (object number → entry). */
  get xrefEntries(): ReadonlyMap<number, XrefEntry> {
    return this.entries;
  }

  /** Number of indirect objects the cross-reference data (or the scan) defines as in use, object 0 excluded. */
  get nrIndirects(): number {
    let n = 0;
    for (const [num, e] of this.entries) if (e.type !== 0 && num > 0) n++;
    return n;
  }

  get catalog(): CosDict | null {
    return resolveDictSync(this, this.trailer.entries.get('Root'));
  }

  /** The object `num`, or null when it is free, undefined or unreadable. Generation numbers are not enforced (readers do not). */
  getObject(num: number): CosIndirect | null {
    const cached = this.cache.get(num);
    if (cached !== undefined) return cached;
    if (this.resolving.has(num)) return null; // a cycle (/Length or an object stream referring to itself)
    this.resolving.add(num);
    let result: CosIndirect | null = null;
    try {
      result = this.loadObject(num);
    } finally {
      this.resolving.delete(num);
    }
    this.cache.set(num, result);
    return result;
  }

  /** A reference resolved (one level, repeated while the result is itself a reference); other values as they are. */
  resolve(v: CosValue | undefined): CosValue | undefined {
    let value = v;
    for (let hops = 0; value?.kind === 'ref' && hops < 32; hops++) value = this.getObject(value.num)?.value ?? COS_NULL;
    return value?.kind === 'ref' ? COS_NULL : value;
  }

  /** `dict[key]` resolved; a stream's dictionary is looked up for a stream. */
  get(v: CosValue | undefined, key: string): CosValue | undefined {
    return this.resolve(dictOf(this.resolve(v))?.entries.get(key));
  }

  /** Every in-use object of the cross-reference data, in object-number order (veraPDF checks these, reachable or not). */
  *indirectObjects(): Generator<CosIndirect> {
    const nums = [...this.entries].filter(([n, e]) => e.type !== 0 && n > 0).map(([n]) => n);
    nums.sort((a, b) => a - b);
    for (const n of nums) {
      const o = this.getObject(n);
      if (o !== null) yield o;
    }
  }

  /** A stream's data through its filters, at most `maxDecodedStreamBytes` (and what is left of `maxTotalDecodedBytes`). */
  decodeStream(stream: CosStream): DecodeResult {
    const raw = this.rawStreamData(stream);
    const left = this.limits.maxTotalDecodedBytes - this.decodedTotal;
    const cap = Math.min(this.limits.maxDecodedStreamBytes, left);
    if (cap <= 0) {
      this.env.limitsHit.add('maxTotalDecodedBytes');
      return { ok: false, reason: 'tooLarge', detail: 'the document exceeded its total decoded-bytes budget' };
    }
    const result = decodeChain(
      raw,
      filterChain(stream.dict, (v) => this.resolve(v)),
      cap,
    );
    if (result.ok) this.decodedTotal += result.data.length;
    else if (result.reason === 'tooLarge' && cap < this.limits.maxDecodedStreamBytes) this.env.limitsHit.add('maxTotalDecodedBytes');
    return result;
  }

  /** The stream's bytes as they are in the file (still encoded). */
  rawStreamData(stream: CosStream): Buffer {
    return stream.source.subarray(stream.dataStart, Math.min(stream.source.length, stream.dataStart + stream.dataLength));
  }

  private readonly resolveLength = (v: CosValue | undefined): number | null => {
    const r = this.resolve(v);
    return r?.kind === 'int' ? r.value : null;
  };

  private parseAt(offset: number): ParsedIndirect | null {
    if (offset < 0 || offset >= this.bytes.length) return null;
    return readIndirectAt(this.bytes, offset, this.env, this.resolveLength);
  }

  private loadObject(num: number): CosIndirect | null {
    const entry = this.entries.get(num);
    if (entry === undefined || entry.type === 0) return null;
    if (entry.type === 2) return this.loadCompressed(num, entry.stream, entry.index);
    let parsed = this.parseAt(entry.offset);
    if (parsed === null || parsed.num !== num) {
      note(this.env, `xref offset ${entry.offset} of object ${num} does not hold it: looked up by scanning`);
      const found = this.scan().get(num);
      parsed = found === undefined ? null : this.parseAt(found.offset);
      if (parsed !== null && parsed.num !== num) parsed = null;
    }
    if (parsed === null) return null;
    return { num, gen: parsed.gen, value: parsed.value, offset: parsed.offset, objectStream: null, spacing: parsed.spacing };
  }

  private loadCompressed(num: number, streamNum: number, index: number): CosIndirect | null {
    const os = this.objectStream(streamNum);
    if (os === null) return null;
    const pair = os.pairs[index];
    const at = pair !== undefined && pair[0] === num ? pair[1] : os.offsets.get(num);
    if (at === undefined || at >= os.data.length) return null;
    const parser = new CosParser(os.data, this.env, at);
    return { num, gen: 0, value: parser.readObject(0), offset: streamNum, objectStream: streamNum, spacing: null };
  }

  private objectStream(streamNum: number): ObjectStreamIndex | null {
    const cached = this.objectStreams.get(streamNum);
    if (cached !== undefined) return cached;
    this.objectStreams.set(streamNum, null);
    const obj = this.getObject(streamNum);
    if (obj === null || obj.value.kind !== 'stream' || obj.objectStream !== null) return null;
    const decoded = this.decodeStream(obj.value);
    if (!decoded.ok) {
      note(this.env, `object stream ${streamNum}: ${decoded.detail}`);
      return null;
    }
    const data = decoded.data;
    const n = this.resolve(obj.value.dict.entries.get('N'));
    const first = this.resolve(obj.value.dict.entries.get('First'));
    if (n?.kind !== 'int' || first?.kind !== 'int' || first.value < 0) return null;
    const parser = new CosParser(data, this.env, 0);
    const pairs: Array<[number, number]> = [];
    const offsets = new Map<number, number>();
    // N is a claim: read pairs only while they are there, and never more than the bytes could hold.
    for (let i = 0; i < n.value && parser.pos < first.value && pairs.length < data.length / 4; i++) {
      parser.skipSpace();
      const num = parser.readUnsigned();
      parser.skipSpace();
      const off = parser.readUnsigned();
      if (num === null || off === null) break;
      pairs.push([num, first.value + off]);
      if (!offsets.has(num)) offsets.set(num, first.value + off);
    }
    const index = { data, offsets, pairs };
    this.objectStreams.set(streamNum, index);
    return index;
  }

  private readChain(): void {
    this.followChain(0);
    // Junk before `%PDF-`: writers then count offsets from the header (qpdf and PDFBox read such files that way).
    if (this.xrefSections.length === 0 && this.header.headerOffset > 0) {
      this.entries.clear();
      this.followChain(this.header.headerOffset);
      if (this.xrefSections.length > 0) note(this.env, `offsets count from the header at ${this.header.headerOffset}`);
    }
  }

  private followChain(base: number): void {
    const visited = new Set<number>();
    const room = { left: this.limits.maxObjects };
    let next = this.eof.startxref;
    while (next !== null) {
      if (visited.has(next)) {
        note(this.env, `xref chain returns to offset ${next}: cycle cut`);
        break;
      }
      if (this.xrefSections.length >= this.limits.maxXrefSections) {
        this.env.limitsHit.add('maxXrefSections');
        break;
      }
      visited.add(next);
      const section = this.readSectionAt(next + base, room);
      if (section === null) {
        note(this.env, `no xref section at offset ${next + base}`);
        if (this.xrefSections.length > 0) this.chainBroken = true;
        break;
      }
      this.addSection(section, base);
      const stm = section.kind === 'table' ? trailerInt(section.trailer, 'XRefStm') : null;
      if (stm !== null && !visited.has(stm)) {
        visited.add(stm);
        const hybrid = this.readSectionAt(stm + base, room);
        if (hybrid?.kind === 'stream') {
          this.hybridStreams.add(hybrid);
          this.addSection(hybrid, base);
        }
      }
      next = trailerInt(section.trailer, 'Prev');
    }
  }

  private addSection(section: XrefSection, base: number): void {
    this.xrefSections.push(section);
    // Newest first: an object defined (or freed) by a newer section hides older definitions.
    for (const [num, e] of section.entries) {
      if (this.entries.has(num)) continue;
      this.entries.set(num, base > 0 && e.type === 1 ? { type: 1, offset: e.offset + base, gen: e.gen } : e);
    }
  }

  private readSectionAt(offset: number, room: { left: number }): XrefSection | null {
    if (offset < 0 || offset >= this.bytes.length) return null;
    const table = readXrefTable(this.bytes, offset, this.env, room);
    if (table !== null) return table;
    const obj = this.parseAt(offset);
    if (obj === null || obj.value.kind !== 'stream') return null;
    const decoded = this.decodeStream(obj.value);
    if (!decoded.ok) note(this.env, `xref stream at ${offset}: ${decoded.detail}`);
    return readXrefStream(obj, decoded.ok ? decoded.data : null, this.env, room);
  }

  private mergeTrailers(): CosDict {
    const entries = new Map<string, CosValue>();
    for (const s of this.xrefSections) {
      if (s.trailer === null) continue;
      for (const [k, v] of s.trailer.entries) if (!entries.has(k)) entries.set(k, v);
    }
    return { kind: 'dict', entries };
  }

  private scan(): Map<number, ScannedObject> {
    if (this.scanned === null) {
      const { objects, truncated } = scanObjects(this.bytes, this.limits.maxObjects);
      if (truncated) this.env.limitsHit.add('maxObjects');
      this.scanned = objects;
    }
    return this.scanned;
  }

  /** Rebuilds entries from a scan of the file; trailer keys from `trailer` keywords and xref stream dictionaries, else a /Catalog found by scanning. */
  private reconstruct(chainTrailer: CosDict): CosDict {
    const scanned = this.scan();
    this.entries.clear();
    this.cache.clear();
    for (const o of scanned.values()) this.entries.set(o.num, { type: 1, offset: o.offset, gen: o.gen });
    const entries = new Map<string, CosValue>(chainTrailer.entries);
    // Later trailers win: read them from the last backwards.
    const trailers = scanKeyword(this.bytes, 'trailer');
    for (let i = trailers.length - 1; i >= 0; i--) {
      const parser = new CosParser(this.bytes, this.env, (trailers[i] as number) + 7);
      const t = parser.readObject(0);
      if (t.kind === 'dict') for (const [k, v] of t.entries) if (!entries.has(k) || (k === 'Root' && this.resolveDict(entries.get(k)) === null)) entries.set(k, v);
    }
    // Object streams and xref streams the scan found: their members and trailer keys.
    for (const o of [...scanned.values()].sort((a, b) => b.offset - a.offset)) {
      const head = this.bytes.toString('latin1', o.offset, Math.min(this.bytes.length, o.offset + 2048));
      if (!head.includes('/ObjStm') && !head.includes('/XRef')) continue;
      const obj = this.getObject(o.num);
      const d = obj?.value.kind === 'stream' ? obj.value.dict : null;
      const type = d?.entries.get('Type');
      if (d === null || type?.kind !== 'name') continue;
      if (type.value === 'XRef') {
        for (const [k, v] of d.entries) if (!entries.has(k)) entries.set(k, v);
      } else if (type.value === 'ObjStm') {
        const os = this.objectStream(o.num);
        os?.pairs.forEach(([num], index) => {
          if (!this.entries.has(num)) this.entries.set(num, { type: 2, stream: o.num, index });
        });
      }
    }
    if (this.resolveDict(entries.get('Root')) === null) {
      for (const num of [...this.entries.keys()].sort((a, b) => b - a)) {
        const v = this.getObject(num)?.value;
        const t = v?.kind === 'dict' ? v.entries.get('Type') : undefined;
        if (t?.kind === 'name' && t.value === 'Catalog') {
          entries.set('Root', { kind: 'ref', num, gen: 0 });
          break;
        }
      }
    }
    return { kind: 'dict', entries };
  }

  private resolveDict(v: CosValue | undefined): CosDict | null {
    const r = this.resolve(v);
    return r?.kind === 'dict' ? r : null;
  }

  /** The first object after the header, when it is a dictionary with /Linearized (ISO 32000-1 F.2: within the first 1024 bytes). */
  private readLinearization(): CosDict | null {
    const buf = this.bytes;
    const from = Math.max(0, this.header.headerOffset);
    const windowEnd = Math.min(buf.length, from + 1024);
    let at = buf.indexOf('obj', this.header.bodyStart, 'latin1');
    if (at < 0 || at > windowEnd) return null;
    // Walk back to the start of `n g obj`.
    let p = at - 1;
    for (let fields = 0; fields < 2; fields++) {
      while (p > 0 && (buf[p] === 0x20 || buf[p] === 0x0a || buf[p] === 0x0d || buf[p] === 0x09)) p--;
      while (p > 0 && (buf[p] as number) >= 0x30 && (buf[p] as number) <= 0x39) p--;
    }
    at = p + 1;
    const head = readObjectHeader(buf, at);
    if (head === null) return null;
    const parser = new CosParser(buf, this.env, head.bodyStart);
    const v = parser.readObject(0);
    return v.kind === 'dict' && v.entries.has('Linearized') ? v : null;
  }
}

function resolveDictSync(doc: CosDocument, v: CosValue | undefined): CosDict | null {
  const r = doc.resolve(v);
  return r?.kind === 'dict' ? r : null;
}
