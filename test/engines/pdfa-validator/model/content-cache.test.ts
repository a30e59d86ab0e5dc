/**
 * The content streams' tokens shared by the PD and COS walks (model/content-cache.ts): read once while the budget
 * has room, taken (and forgotten) by the last reader, read afresh past the budget; a stream that cannot be decoded
 * keeps its reason.
 */
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { type CosStream, openCosBytes } from '../../../../src/engines/pdfa-validator/cos/index.js';
import { ContentCache, type ContentRead } from '../../../../src/engines/pdfa-validator/model/content-cache.js';
import { buildPdf, streamBody } from '../cos/build-pdf.js';

const content = Buffer.from('q 1 0 0 1 0 0 cm BT /F1 12 Tf (Hello) Tj ET Q');

function twoStreams() {
  const bytes = buildPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [] /Count 0 >>',
    streamBody(`/Length ${deflateSync(content).length} /Filter /FlateDecode`, deflateSync(content)),
    streamBody('/Length 5 /Filter /FlateDecode', Buffer.from('xxxxx')),
  ]).bytes;
  const doc = openCosBytes(bytes);
  const stream = (num: number): CosStream => {
    const v = doc.getObject(num)?.value;
    if (v?.kind !== 'stream') throw new Error(`object ${num} is not a stream`);
    return v;
  };
  return { doc, good: stream(3), broken: stream(4) };
}

function names(read: ContentRead): string[] {
  if (!read.ok) throw new Error(read.reason);
  return [...read.tokens].map((t) => (t.kind === 'operator' ? t.name : t.kind));
}

describe('ContentCache', () => {
  it('reads a stream once for both walks, and forgets it when the last reader takes it', () => {
    const { doc, good } = twoStreams();
    const cache = new ContentCache(doc);
    const first = cache.read(good);
    expect(cache.read(good)).toBe(first);
    expect(names(first)).toEqual(['q', 'operand', 'operand', 'operand', 'operand', 'operand', 'operand', 'cm', 'BT', 'operand', 'operand', 'Tf', 'operand', 'Tj', 'ET', 'Q']);
    expect(cache.take(good)).toBe(first);
    const again = cache.take(good);
    expect(again).not.toBe(first);
    expect(names(again)).toEqual(names(first));
  });

  it('past its budget reads the stream afresh each time, with the same tokens', () => {
    const { doc, good } = twoStreams();
    const cache = new ContentCache(doc, 10);
    const first = names(cache.read(good));
    expect(first).toHaveLength(16);
    expect(names(cache.read(good))).toEqual(first);
    expect(names(cache.take(good))).toEqual(first);
    // Nothing kept: each read is a fresh pass over the decoded data, not an array of tokens held by the cache.
    const read = cache.read(good);
    expect(read.ok && Array.isArray(read.tokens)).toBe(false);
  });

  it('keeps why a stream cannot be decoded', () => {
    const { doc, broken } = twoStreams();
    const cache = new ContentCache(doc);
    const read = cache.read(broken);
    expect(read.ok).toBe(false);
    expect(cache.take(broken)).toBe(read);
  });
});
