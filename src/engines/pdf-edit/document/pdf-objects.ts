import { writeFile } from 'node:fs/promises';
import { asArray, asDict, isRef, ObjectFetcher, parseJson, type QDict, type QValue } from '../../pdf/qpdf-json.js';
import type { QpdfCall } from '../../pdf/qpdf.js';
import type { PdfStructureTool } from '../../contracts.js';
import { DocumentEditError } from './errors.js';

/**
 * Reading and rewriting individual PDF objects through qpdf's JSON v2 interface, so that small
 * structural edits (the information dictionary, the XMP stream, embedded files, a portfolio's
 * collection) never load the document into memory: qpdf reads the objects asked for, and
 * `--update-from-json` replaces or adds objects while it copies everything else, streaming.
 *
 * Object numbers are those qpdf reports for the unmodified input; new objects are numbered after the
 * highest one (`maxobjectid`), which is how qpdf expects additions in an update.
 */
export class PdfObjects {
  private constructor(
    readonly qpdf: PdfStructureTool,
    /** The file the objects are read from (a copy without object streams, see `open`). */
    readonly file: string,
    readonly call: QpdfCall,
    /** The first element of qpdf's "qpdf" array; an update must carry the same. */
    readonly header: QDict,
    readonly trailer: QDict,
    private readonly fetcher: ObjectFetcher,
    private readonly scratch: (extension: string) => string,
    /** Whether the original had object streams (they are generated again on commit). */
    private readonly objectStreams: boolean,
  ) {}

  /**
   * Opens `file` (an absolute path) and reads its trailer.
   *
   * qpdf 11.3 loses updates to objects that live in object streams: when it later resolves another
   * object of the same object stream, it re-reads them all and overwrites the updated ones. So for
   * writing, a file with a cross-reference stream (the only kind that can have object streams) is
   * first rewritten without object streams into `scratch` and read from there; `commit` generates
   * object streams again, so the result stays as compact.
   */
  static async open(qpdf: PdfStructureTool, file: string, call: QpdfCall, scratch: (extension: string) => string, options: { readOnly?: boolean } = {}): Promise<PdfObjects> {
    const first = await readTrailer(qpdf, file, call);
    if (options.readOnly || (first.trailer['/Type'] !== '/XRef' && first.trailer['/XRefStm'] === undefined)) {
      return new PdfObjects(qpdf, file, call, first.header, first.trailer, fetcherFor(qpdf, file, call, first.trailer), scratch, false);
    }
    const flat = scratch('pdf');
    await qpdf.run(['--object-streams=disable', file, flat], call);
    const { header, trailer } = await readTrailer(qpdf, flat, call);
    return new PdfObjects(qpdf, flat, call, header, trailer, fetcherFor(qpdf, flat, call, trailer), scratch, true);
  }

  /** Writes the document read, with `update` applied, to `output`. */
  async commit(update: PdfUpdate, output: string, extraArgs: readonly string[] = []): Promise<void> {
    const args = this.objectStreams ? ['--object-streams=generate', ...extraArgs] : extraArgs;
    await update.write(this.qpdf, this.file, output, this.scratch('json'), this.call, args);
  }

  /**
   * Reads every object of the file (stream dictionaries without their data) in one qpdf run. For
   * structures that are linked lists (portfolio folders), where fetching level by level would take
   * one run per sibling.
   */
  async loadAll(): Promise<void> {
    const result = await this.qpdf.run(['--json=2', '--json-key=qpdf', '--json-stream-data=none', this.file], { ...this.call, maxOutputBytes: 256 * 1024 * 1024 });
    const objects = asDict(asArray(parseJson(result.stdout).qpdf)?.[1]) ?? {};
    this.fetcher.absorb(objects, true);
  }

  /** Fetches several objects in one qpdf run (the cache keeps them). */
  async fetch(refs: Iterable<string>): Promise<void> {
    await this.fetcher.fetch([...refs].filter((ref) => isRef(ref)));
  }

  /** Follows references; a stream comes back as its dictionary. */
  async resolve(value: QValue | undefined): Promise<QValue | undefined> {
    return this.fetcher.resolve(value);
  }

  /** Like `resolve`, for objects already fetched (never starts qpdf). */
  peek(value: QValue | undefined): QValue | undefined {
    return this.fetcher.peek(value);
  }

  async dict(value: QValue | undefined): Promise<QDict | undefined> {
    return asDict(await this.resolve(value));
  }

  /** The document catalog and its reference. */
  async catalog(): Promise<{ ref: string; dict: QDict }> {
    const ref = this.trailer['/Root'];
    const dict = await this.dict(ref);
    if (!isRef(ref) || !dict) throw new DocumentEditError('damaged', 'The PDF has no document catalog.');
    return { ref, dict };
  }

  /**
   * The decoded data of stream objects, written by qpdf into files named `<prefix>-<object number>`
   * (qpdf streams the data; nothing is held in memory here). A stream qpdf cannot decode (an unknown
   * filter, a lossy image filter) is refused: its raw bytes would not be the embedded file.
   */
  async streamsToFiles(refs: readonly string[], prefix: string): Promise<Map<string, { file: string; dict: QDict }>> {
    const found = new Map<string, { file: string; dict: QDict }>();
    const unique = [...new Set(refs)];
    for (let i = 0; i < unique.length; i += 500) {
      const batch = unique.slice(i, i + 500);
      const args = ['--json=2', '--json-key=qpdf', '--json-stream-data=file', `--json-stream-prefix=${prefix}`, '--decode-level=generalized'];
      const result = await this.qpdf.run([...args, ...batch.map((ref) => `--json-object=${ref}`), this.file], { ...this.call, maxOutputBytes: 64 * 1024 * 1024 });
      const objects = asDict(asArray(parseJson(result.stdout).qpdf)?.[1]) ?? {};
      for (const ref of batch) {
        const stream = asDict(asDict(objects[`obj:${ref}`])?.stream);
        if (!stream || typeof stream.datafile !== 'string') continue;
        const dict = asDict(stream.dict) ?? {};
        if (dict['/Filter'] !== undefined) {
          throw new DocumentEditError('unsupported', `The embedded data in object ${ref} uses a filter this server cannot decode (${JSON.stringify(dict['/Filter'])}).`);
        }
        found.set(ref, { file: stream.datafile, dict });
      }
    }
    return found;
  }

  /** The decoded data of one (small) stream, e.g. the XMP packet; undefined when `ref` is no stream. */
  async streamBytes(ref: string, maxBytes: number): Promise<{ data: Buffer; dict: QDict } | undefined> {
    const args = ['--json=2', '--json-key=qpdf', '--json-stream-data=inline', '--decode-level=generalized', `--json-object=${ref}`, this.file];
    const result = await this.qpdf.run(args, { ...this.call, maxOutputBytes: Math.ceil(maxBytes * 1.4) + 64 * 1024 });
    const objects = asDict(asArray(parseJson(result.stdout).qpdf)?.[1]) ?? {};
    const stream = asDict(asDict(objects[`obj:${ref}`])?.stream);
    if (!stream) return undefined;
    const dict = asDict(stream.dict) ?? {};
    if (dict['/Filter'] !== undefined || typeof stream.data !== 'string') {
      throw new DocumentEditError('unsupported', `The stream ${ref} uses a filter this server cannot decode.`);
    }
    return { data: Buffer.from(stream.data, 'base64'), dict };
  }

  /** A builder for changes to this document. */
  update(): PdfUpdate {
    return new PdfUpdate(this.header);
  }
}

async function readTrailer(qpdf: PdfStructureTool, file: string, call: QpdfCall): Promise<{ header: QDict; trailer: QDict }> {
  const result = await qpdf.run(['--json=2', '--json-key=qpdf', '--json-object=trailer', file], { ...call, maxOutputBytes: 4 * 1024 * 1024 });
  const parts = asArray(parseJson(result.stdout).qpdf);
  const header = asDict(parts?.[0]);
  const trailer = asDict(asDict(asDict(parts?.[1])?.trailer)?.value);
  if (!header || typeof header.maxobjectid !== 'number' || !trailer) throw new DocumentEditError('damaged', 'The PDF has no readable trailer.');
  return { header, trailer };
}

function fetcherFor(qpdf: PdfStructureTool, file: string, call: QpdfCall, trailer: QDict): ObjectFetcher {
  const fetcher = new ObjectFetcher(qpdf, file, call);
  fetcher.absorb({ trailer: { value: trailer } }, false);
  return fetcher;
}

/**
 * The changes to write: replaced objects, new objects, a new trailer. `write` hands them to
 * `qpdf --update-from-json`, which copies the document with these objects replaced or added;
 * objects no longer referenced from anywhere are dropped by qpdf as it writes.
 */
export class PdfUpdate {
  private nextNumber: number;
  private readonly objects: QDict = {};

  constructor(private readonly header: QDict) {
    this.nextNumber = (header.maxobjectid as number) + 1;
  }

  /** Adds a new (non-stream) object; returns its reference. */
  add(value: QValue): string {
    const ref = `${this.nextNumber++} 0 R`;
    this.objects[`obj:${ref}`] = { value };
    return ref;
  }

  /** Adds a new stream whose (unfiltered) data qpdf reads from `dataFile`; qpdf compresses it as it writes. */
  addStream(dict: QDict, dataFile: string): string {
    const ref = `${this.nextNumber++} 0 R`;
    this.setStream(ref, dict, dataFile);
    return ref;
  }

  /** Reserves a reference for an object whose value is set later (for objects that refer to each other). */
  reserve(): string {
    return `${this.nextNumber++} 0 R`;
  }

  set(ref: string, value: QValue): void {
    this.objects[`obj:${ref}`] = { value };
  }

  setStream(ref: string, dict: QDict, dataFile: string): void {
    const clean = { ...dict };
    // The data is given unfiltered; qpdf recomputes the length.
    for (const key of ['/Filter', '/DecodeParms', '/Length', '/DL', '/F', '/FFilter', '/FDecodeParms']) delete clean[key];
    this.objects[`obj:${ref}`] = { stream: { dict: clean, datafile: dataFile } };
  }

  setTrailer(trailer: QDict): void {
    const clean = { ...trailer };
    // A cross-reference stream's own entries are not part of the trailer qpdf writes.
    for (const key of ['/Type', '/W', '/Index', '/Filter', '/DecodeParms', '/Length', '/Prev', '/XRefStm']) delete clean[key];
    this.objects.trailer = { value: clean };
  }

  get isEmpty(): boolean {
    return Object.keys(this.objects).length === 0;
  }

  /** Writes `input` with the changes to `output`; `jsonFile` is a scratch path for the update. */
  async write(qpdf: PdfStructureTool, input: string, output: string, jsonFile: string, call: QpdfCall, extraArgs: readonly string[] = []): Promise<void> {
    // The header goes back as qpdf wrote it: its maxobjectid tells qpdf which numbers are new objects.
    await writeFile(jsonFile, JSON.stringify({ qpdf: [this.header, this.objects] }));
    await qpdf.run([...extraArgs, input, `--update-from-json=${jsonFile}`, output], call);
  }
}
