const fatalUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The facts of an XMP packet that are in its bytes rather than its RDF (XMP Specification Part 1 §7.3
 * "XMP packet wrapper"; ISO 19005-1 6.7.5, -2 6.6.2.1): the encoding the bytes are really in, and
 * the deprecated `bytes` and `encoding` attributes of the `<?xpacket begin…?>` header.
 */
export interface PacketFacts {
  /** `UTF-8`, `UTF-16BE`, `UTF-16LE`, `UTF-32BE`, `UTF-32LE`; null when the bytes are none of them (e.g. not valid UTF-8). */
  actualEncoding: string | null;
  /** The header's `bytes` attribute value; null when there is no header or no such attribute. */
  bytes: string | null;
  /** The header's `encoding` attribute value; null when absent. */
  encoding: string | null;
  /** The packet as text (decoded in `actualEncoding`, or as UTF-8 with replacement when that is null). */
  text: string;
}

export function packetFacts(data: Buffer): PacketFacts {
  const actualEncoding = detectEncoding(data);
  const text = decode(data, actualEncoding);
  const header = /<\?xpacket\s((?:(?!\?>)[^])*\bbegin\s*=(?:(?!\?>)[^])*)\?>/.exec(text.slice(0, 4096));
  const attr = (name: string): string | null => {
    if (header === null) return null;
    const m = new RegExp(`(?:^|\\s)${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`).exec(header[1] as string);
    return m === null ? null : ((m[1] ?? m[2]) as string);
  };
  return { actualEncoding, bytes: attr('bytes'), encoding: attr('encoding'), text };
}

/** From the byte order mark, else from the zero bytes around the first `<` (XML 1.0 Appendix F), else UTF-8 if valid. */
function detectEncoding(data: Buffer): string | null {
  const b = (i: number): number => data[i] ?? -1;
  if (b(0) === 0 && b(1) === 0 && b(2) === 0xfe && b(3) === 0xff) return 'UTF-32BE';
  if (b(0) === 0xff && b(1) === 0xfe && b(2) === 0 && b(3) === 0) return 'UTF-32LE';
  if (b(0) === 0xfe && b(1) === 0xff) return 'UTF-16BE';
  if (b(0) === 0xff && b(1) === 0xfe) return 'UTF-16LE';
  if (b(0) === 0 && b(1) === 0 && b(2) === 0 && b(3) === 0x3c) return 'UTF-32BE';
  if (b(0) === 0x3c && b(1) === 0 && b(2) === 0 && b(3) === 0) return 'UTF-32LE';
  if (b(0) === 0 && b(1) === 0x3c) return 'UTF-16BE';
  if (b(0) === 0x3c && b(1) === 0) return 'UTF-16LE';
  try {
    fatalUtf8.decode(data);
    return 'UTF-8';
  } catch {
    return null;
  }
}

function decode(data: Buffer, encoding: string | null): string {
  switch (encoding) {
    case 'UTF-16LE':
      return data.toString('utf16le').replace(/^\ufeff/, '');
    case 'UTF-16BE': {
      const swapped = Buffer.from(data.subarray(0, data.length - (data.length % 2)));
      swapped.swap16();
      return swapped.toString('utf16le').replace(/^\ufeff/, '');
    }
    case 'UTF-32BE':
    case 'UTF-32LE': {
      let out = '';
      for (let i = 0; i + 3 < data.length; i += 4) {
        const cp = encoding === 'UTF-32BE' ? data.readUInt32BE(i) : data.readUInt32LE(i);
        out += cp <= 0x10ffff && (cp < 0xd800 || cp > 0xdfff) ? String.fromCodePoint(cp) : '\ufffd';
      }
      return out.replace(/^\ufeff/, '');
    }
    default:
      return data.toString('utf8').replace(/^\ufeff/, '');
  }
}
