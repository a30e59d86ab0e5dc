/**
 * JPEG2000 images (ISO 19005-2 6.2.8.3, ISO/IEC 15444-1 Annex I JP2 file format): the facts of the
 * JP2 boxes PDF/A checks — channels, colour specifications ('colr'), bit depth ('ihdr', 'bpcc'). A raw
 * codestream (no JP2 boxes) gives its channels and depth from the SIZ marker and has no colour
 * specification. Every read is bounds-checked; box counts and nesting are capped.
 */
export interface Jpeg2000Facts {
  readonly nrColorChannels: number | null;
  readonly nrColorSpaceSpecs: number;
  readonly nrColorSpacesWithApproxField: number;
  readonly colrMethod: number | null;
  readonly colrEnumCS: number | null;
  readonly bitDepth: number | null;
  readonly bpccBoxPresent: boolean;
}

const MAX_BOXES = 1000;

interface Box {
  readonly type: string;
  readonly start: number;
  readonly end: number;
}

function* boxes(data: Buffer, from: number, to: number): Generator<Box> {
  let at = from;
  for (let n = 0; n < MAX_BOXES && at + 8 <= to; n++) {
    let length = data.readUInt32BE(at);
    const type = data.toString('latin1', at + 4, at + 8);
    let header = 8;
    if (length === 1) {
      if (at + 16 > to) return;
      const high = data.readUInt32BE(at + 8);
      length = high * 2 ** 32 + data.readUInt32BE(at + 12);
      header = 16;
    } else if (length === 0) length = to - at;
    if (length < header || at + length > to) return;
    yield { type, start: at + header, end: at + length };
    at += length;
  }
}

/** Facts of JPEG2000 data, or undefined when it is neither a JP2 file nor a codestream. */
export function jpeg2000Facts(data: Buffer): Jpeg2000Facts | undefined {
  if (data.length >= 4 && data.readUInt32BE(0) === 0xff4fff51) return codestreamFacts(data, 0, data.length);
  if (data.length < 12 || data.toString('latin1', 4, 8) !== 'jP  ') return undefined;
  let channels: number | null = null;
  let palette: number | null = null;
  let depth: number | null = null;
  let bpcc = false;
  const colr: Array<{ meth: number; approx: number; enumCS: number | null }> = [];
  let codestream: Box | undefined;
  for (const box of boxes(data, 0, data.length)) {
    if (box.type === 'jp2c') codestream ??= box;
    if (box.type !== 'jp2h') continue;
    for (const inner of boxes(data, box.start, box.end)) {
      if (inner.type === 'ihdr' && inner.end - inner.start >= 14) {
        channels = data.readUInt16BE(inner.start + 8);
        const bpc = data[inner.start + 10]!;
        depth = bpc === 0xff ? null : (bpc & 0x7f) + 1;
      } else if (inner.type === 'bpcc') bpcc = true;
      else if (inner.type === 'pclr' && inner.end - inner.start >= 3) palette = data[inner.start + 2]!;
      else if (inner.type === 'colr' && inner.end - inner.start >= 3) {
        const meth = data[inner.start]!;
        const enumCS = meth === 1 && inner.end - inner.start >= 7 ? data.readUInt32BE(inner.start + 3) : null;
        colr.push({ meth, approx: data[inner.start + 2]!, enumCS });
      }
    }
  }
  if (channels === null && codestream !== undefined) {
    const c = codestreamFacts(data, codestream.start, codestream.end);
    channels = c?.nrColorChannels ?? null;
    depth = c?.bitDepth ?? null;
  }
  const approx = colr.filter((c) => c.approx === 1);
  // The colour specification a reader uses: the only one, else the one marked APPROX 1, else the first.
  const chosen = colr.length === 1 ? colr[0] : approx.length === 1 ? approx[0] : colr[0];
  return {
    nrColorChannels: palette ?? channels,
    nrColorSpaceSpecs: colr.length,
    nrColorSpacesWithApproxField: approx.length,
    colrMethod: chosen?.meth ?? null,
    colrEnumCS: chosen?.enumCS ?? null,
    bitDepth: depth,
    bpccBoxPresent: bpcc,
  };
}

/** SIZ (ISO/IEC 15444-1 A.5.1): the component count, and the common bit depth (null when components differ). */
function codestreamFacts(data: Buffer, from: number, to: number): Jpeg2000Facts | undefined {
  // SOC (FF4F) then SIZ (FF51): Lsiz(2) Rsiz(2) Xsiz..YTOsiz (8×4) Csiz(2), then Ssiz per component.
  if (from + 42 > to || data.readUInt16BE(from) !== 0xff4f || data.readUInt16BE(from + 2) !== 0xff51) return undefined;
  const csiz = data.readUInt16BE(from + 40);
  let depth: number | null = null;
  let same = true;
  for (let i = 0; i < csiz && i < 16_384; i++) {
    const at = from + 42 + i * 3;
    if (at >= to) return undefined;
    const d = (data[at]! & 0x7f) + 1;
    if (depth === null) depth = d;
    else if (depth !== d) same = false;
  }
  return { nrColorChannels: csiz, nrColorSpaceSpecs: 0, nrColorSpacesWithApproxField: 0, colrMethod: null, colrEnumCS: null, bitDepth: same ? depth : null, bpccBoxPresent: !same };
}
