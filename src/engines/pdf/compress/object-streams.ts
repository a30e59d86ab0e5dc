import { deflateSync } from 'node:zlib';
import { EngineError } from '../../engine-error.js';
import { isRef, isString, type PdfValue } from '../pdf-syntax.js';
import { readObject, rewriteClassicFile } from '../security/classic-file.js';

/**
 * Packs the objects of a PDF that qpdf wrote with `--object-streams=disable` into object streams
 * of exactly `objectsPerStream` objects (the last one may hold fewer), with a compressed
 * cross-reference stream (ISO 32000-1 §7.5.7, §7.5.8).
 *
 * qpdf generates object streams itself, but always of at most 100 objects, spread evenly; webPDF's
 * `objectStreamSize` names the size. Streams, and objects of a generation other than 0, stay
 * outside (§7.5.7 forbids them inside); there is no encryption dictionary (the input is unencrypted).
 */

export class ObjectStreamError extends EngineError<'timeout'> {}

interface XrefEntry {
  type: 1 | 2;
  /** Offset (type 1) or the object stream's number (type 2). */
  field2: number;
  /** Generation (type 1) or the index in the object stream (type 2). */
  field3: number;
}

export async function packObjectStreams(source: string, target: string, options: { objectsPerStream: number; deadline?: number }): Promise<void> {
  const perStream = Math.max(1, Math.floor(options.objectsPerStream));
  await rewriteClassicFile(source, target, async (input, layout, output) => {
    const write = (chunk: Buffer) => output.write(chunk);

    const entries = new Map<number, XrefEntry>();
    let nextNumber = layout.size;
    let pending: { num: number; body: Buffer }[] = [];
    const flush = async () => {
      if (pending.length === 0) return;
      const streamNumber = nextNumber++;
      const bodies: Buffer[] = [];
      const index: string[] = [];
      let offset = 0;
      pending.forEach(({ num, body }, i) => {
        index.push(`${num} ${offset}`);
        bodies.push(body, Buffer.from('\n', 'latin1'));
        offset += body.length + 1;
        entries.set(num, { type: 2, field2: streamNumber, field3: i });
      });
      const head = Buffer.from(`${index.join(' ')}\n`, 'latin1');
      const data = deflateSync(Buffer.concat([head, ...bodies]), { level: 9 });
      entries.set(streamNumber, { type: 1, field2: output.position, field3: 0 });
      await write(Buffer.from(`${streamNumber} 0 obj\n<< /Type /ObjStm /N ${pending.length} /First ${head.length} /Filter /FlateDecode /Length ${data.length} >>\nstream\n`, 'latin1'));
      await write(data);
      await write(Buffer.from('\nendstream\nendobj\n', 'latin1'));
      pending = [];
    };

    for (const entry of layout.objects) {
      if (options.deadline !== undefined && Date.now() > options.deadline) throw new ObjectStreamError('timeout', 'Packing the objects ran out of time.');
      const object = await readObject(input, entry);
      if (object.stream || object.gen !== 0) {
        entries.set(object.num, { type: 1, field2: output.position, field3: object.gen });
        await write(object.raw.subarray(0, Math.max(object.stream?.end ?? 0, object.valueEnd)));
        await write(Buffer.from(object.stream ? '\nendstream\nendobj\n' : '\nendobj\n', 'latin1'));
        continue;
      }
      pending.push({ num: object.num, body: object.raw.subarray(object.valueStart, object.valueEnd) });
      if (pending.length === perStream) await flush();
    }
    await flush();

    const xrefNumber = nextNumber++;
    entries.set(xrefNumber, { type: 1, field2: output.position, field3: 0 });
    const size = nextNumber;
    // A loop, not Math.max(...values): spreading 100,000+ entries as arguments overflows the stack.
    let maxField2 = 0;
    let maxField3 = 0;
    for (const entry of entries.values()) {
      if (entry.field2 > maxField2) maxField2 = entry.field2;
      if (entry.field3 > maxField3) maxField3 = entry.field3;
    }
    const w = [1, bytesFor(maxField2), Math.max(2, bytesFor(maxField3))] as const;
    const rows = Buffer.alloc(size * (w[0] + w[1] + w[2]));
    let at = 0;
    for (let num = 0; num < size; num++) {
      const entry = entries.get(num);
      // Free entries (object 0 and gaps): type 0, next free 0; object 0 has generation 65535.
      const [type, field2, field3] = entry ? [entry.type, entry.field2, entry.field3] : [0, 0, num === 0 ? 65535 : 0];
      at = rows.writeUIntBE(type, at, w[0]);
      at = rows.writeUIntBE(field2, at, w[1]);
      at = rows.writeUIntBE(field3, at, w[2]);
    }
    const data = deflateSync(rows, { level: 9 });
    const trailer = trailerEntries(layout.trailer.entries);
    await write(Buffer.from(`${xrefNumber} 0 obj\n<< /Type /XRef /Size ${size} /W [${w.join(' ')}]${trailer} /Filter /FlateDecode /Length ${data.length} >>\nstream\n`, 'latin1'));
    await write(data);
    await write(Buffer.from(`\nendstream\nendobj\nstartxref\n${entries.get(xrefNumber)!.field2}\n%%EOF\n`, 'latin1'));
  });
}

function bytesFor(value: number): number {
  let bytes = 1;
  while (value >= 2 ** (8 * bytes)) bytes++;
  return bytes;
}

/** /Root, /Info and /ID of the classic trailer, for the cross-reference stream's dictionary. */
function trailerEntries(entries: Map<string, PdfValue>): string {
  let text = '';
  for (const key of ['Root', 'Info']) {
    const value = entries.get(key);
    if (isRef(value)) text += ` /${key} ${value.num} ${value.gen} R`;
  }
  const id = entries.get('ID');
  if (Array.isArray(id) && id.length === 2 && id.every((part) => isString(part))) {
    text += ` /ID [${id.map((part) => `<${(part as { bytes: Buffer }).bytes.toString('hex')}>`).join(' ')}]`;
  }
  return text;
}
