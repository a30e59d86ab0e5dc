import type { PdfStructureTool } from '../contracts.js';
import { stat } from 'node:fs/promises';
import { countPages, listPages } from './page-count.js';
import { declaresWrongCount, repairPageCount } from './page-count-repair.js';
import { classifyFailure, QpdfRunner } from './qpdf.js';
import { readEncryptDictionary } from './trailer-reader.js';

export interface RewriteOptions {
  /** Pages to keep, in qpdf's syntax ("1-3,5"); absent: all. */
  pages?: string;
  /** true: compressed streams; false: uncompressed streams, no object streams; absent: as qpdf keeps them. */
  compress?: boolean;
  /** Opens a protected source; the result keeps the source's encryption. */
  password?: string;
  deadline?: number;
}

/**
 * Structural rewrites of a PDF with qpdf: page selection, (de)compression, and the repair qpdf does
 * on every rewrite (it rebuilds a damaged cross-reference table). Content is never re-rendered.
 */
export class PdfRewriter {
  private readonly qpdf: PdfStructureTool;
  private readonly counts = new Map<string, number>();

  /** `qpdf`: the server's one configured runner (engines-wiring.ts); without it a runner of its own (tests). */
  constructor(options: { qpdf?: PdfStructureTool; qpdfPath?: string; timeoutMs: number }) {
    this.qpdf = options.qpdf ?? new QpdfRunner({ qpdfPath: options.qpdfPath ?? 'qpdf', timeoutMs: options.timeoutMs });
  }

  /**
   * The real number of pages (the page tree walked, never the /Count the file declares: see
   * page-count.ts). Remembered per file version, so that a call that checked the tree (see
   * `repaired`) and then counts pages walks it once.
   */
  async pageCount(input: string, options: { password?: string; deadline?: number } = {}): Promise<number> {
    const key = await versionKey(input);
    const known = key === undefined ? undefined : this.counts.get(key);
    if (known !== undefined) return known;
    const count = await countPages(this.qpdf, input, options);
    this.remember(key, count);
    return count;
  }

  /**
   * The file the engines should work on: `input` itself when qpdf reads its pages without complaint,
   * else a copy written to `output` as qpdf repairs it. A page tree root that lies about its /Count
   * gets the real count (see page-count-repair.ts); any other damage qpdf recovers from while walking
   * the pages (broken dictionaries, stray tokens, a rebuilt cross-reference table) is written out
   * recovered, so that pdf-lib and poppler, which recover less, see what qpdf sees. Returns the path
   * to go on with.
   */
  async repaired(input: string, output: string, options: { deadline?: number } = {}): Promise<string> {
    const listing = await listPages(this.qpdf, input, options, { maxRefs: 0 });
    if (declaresWrongCount(listing)) await repairPageCount(this.qpdf, input, output, listing, options);
    else if (listing.warnings) await this.qpdf.run([input, output], options);
    else {
      this.remember(await versionKey(input), listing.count);
      return input;
    }
    this.remember(await versionKey(output), listing.count);
    return output;
  }

  private remember(key: string | undefined, count: number): void {
    if (key === undefined) return;
    if (this.counts.size >= REMEMBERED_COUNTS) this.counts.delete(this.counts.keys().next().value!);
    this.counts.set(key, count);
  }

  async rewrite(input: string, output: string, options: RewriteOptions = {}): Promise<void> {
    const args: string[] = [];
    // No --object-streams=generate: qpdf 11.3 writes a broken cross-reference stream for inputs whose
    // trailer lacks /Size (damaged files it repairs), so existing object streams are kept as they are.
    if (options.compress === true) args.push('--compress-streams=y');
    if (options.compress === false) args.push('--object-streams=disable', '--compress-streams=n', '--decode-level=generalized');
    args.push(input);
    if (options.pages !== undefined) args.push('--pages', '.', options.pages, '--');
    args.push(output);
    await this.qpdf.run(args, { password: options.password, deadline: options.deadline });
  }

  /** Concatenates whole PDFs, in order, into `output`. */
  async merge(inputs: readonly string[], output: string, options: { deadline?: number } = {}): Promise<void> {
    await this.qpdf.run(['--empty', '--pages', ...inputs, '--', output], options);
  }

  /** Embeds files as document-level attachments (names shown by viewers; keys made unique). */
  async attach(input: string, output: string, files: readonly { path: string; name: string; mimeType: string }[], options: { deadline?: number } = {}): Promise<void> {
    const used = new Set<string>();
    const args = [input];
    for (const file of files) {
      let key = file.name || 'attachment';
      for (let n = 2; used.has(key); n++) key = `${n}-${file.name}`;
      used.add(key);
      args.push('--add-attachment', file.path, `--key=${key}`, `--filename=${file.name}`, `--mimetype=${file.mimeType || 'application/octet-stream'}`, '--');
    }
    args.push(output);
    await this.qpdf.run(args, options);
  }

  /**
   * Whether the PDF has an encryption dictionary. The trailer is read directly (no process start);
   * only a file whose cross-reference table cannot be followed is asked of qpdf (exit 0 yes, 2 no).
   */
  async isEncrypted(input: string, options: { deadline?: number } = {}): Promise<boolean> {
    const lookup = await readEncryptDictionary(input);
    if (lookup.status !== 'unreadable') return lookup.status === 'found';
    const result = await this.qpdf.raw(['--is-encrypted', input], options);
    if (result.exitCode === 0) return true;
    if (result.exitCode === 2) return false;
    throw classifyFailure(result);
  }

  /** A decrypted copy, opened with the user or the owner password. */
  async decrypt(input: string, output: string, options: { password?: string; deadline?: number } = {}): Promise<void> {
    await this.qpdf.run(['--decrypt', input, output], options);
  }

  /** `input` (unencrypted) written with the encryption of `original`, which `password` opens. */
  async copyEncryption(input: string, original: string, output: string, options: { password?: string; deadline?: number } = {}): Promise<void> {
    // qpdf takes the original's password only as an argument: it goes through an argument file.
    const argumentFile = `${output}.args`;
    const secrets = `--copy-encryption=${original}\n--encryption-file-password=${options.password ?? ''}\n`;
    await this.qpdf.runWithSecretFile(argumentFile, secrets, [`@${argumentFile}`, input, output], { deadline: options.deadline });
  }

  /** A PDF with no pages (the start of `toolbox/new`). */
  async empty(output: string): Promise<void> {
    await this.qpdf.run(['--empty', output]);
  }
}

/** Page counts remembered (the newest ones; each toolbox call adds one or two). */
const REMEMBERED_COUNTS = 512;

/**
 * A file version's identity: path, inode, size and times. Toolbox scratch files are written once
 * under fresh names and never changed in place, so a key cannot come back with other content.
 */
async function versionKey(file: string): Promise<string | undefined> {
  const info = await stat(file, { bigint: true }).catch(() => undefined);
  if (!info) return undefined; // qpdf reports the missing file
  return `${file}\0${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
}
