/**
 * Mutations for the text formats (XFDF, XMP, XML members of Office files, HTML, SVG, e-mail, RTF,
 * PostScript): deep nesting, huge attributes and lines, entity tricks, MIME structures that nest or
 * whose boundaries and encodings lie.
 */
import type { Mutator } from './types.js';

function insertAt(input: Buffer, at: number, text: string): Buffer {
  return Buffer.concat([input.subarray(0, at), Buffer.from(text, 'utf8'), input.subarray(at)]);
}

/** A position right after a '>' (inside the markup) or anywhere when there is none. */
function tagBoundary(text: string, pick: (n: number) => number): number {
  const positions: number[] = [];
  for (let i = text.indexOf('>'); i >= 0 && positions.length < 10_000; i = text.indexOf('>', i + 1)) positions.push(i + 1);
  return positions.length ? positions[pick(positions.length)]! : pick(text.length + 1);
}

export const textMutators: Mutator[] = [
  {
    name: 'text.nest',
    kinds: ['xfdf', 'xmp', 'html', 'svg', 'text', 'mail', 'office', 'ps'],
    weight: 4,
    apply(input, { rng }) {
      const text = input.toString('latin1');
      const depth = rng.pick([1000, 10_000, 100_000]);
      const balanced = rng.chance(0.7);
      const markup = /<\w/.test(text);
      const tag = rng.pick(['a', 'div', 'field', 'rdf:li', 'w:p', 'g', 'x']);
      const nested = markup
        ? `<${tag}>`.repeat(depth) + (balanced ? `</${tag}>`.repeat(depth) : '')
        : text.startsWith('{\\rtf')
          ? '{'.repeat(depth) + (balanced ? '}'.repeat(depth) : '')
          : text.startsWith('%!')
            ? '['.repeat(depth) + (balanced ? ']'.repeat(depth) : '')
            : '{"a":'.repeat(depth) + '1' + (balanced ? '}'.repeat(depth) : '');
      return {
        bytes: insertAt(
          input,
          tagBoundary(text, (n) => rng.below(n)),
          nested,
        ),
        note: `nested ${depth} deep${balanced ? '' : ', unbalanced'}`,
      };
    },
  },
  {
    name: 'text.huge',
    kinds: ['xfdf', 'xmp', 'html', 'svg', 'text', 'mail', 'office'],
    weight: 2,
    apply(input, { rng }) {
      const text = input.toString('latin1');
      const size = rng.pick([64 * 1024, 1024 * 1024, 8 * 1024 * 1024]);
      const filler = rng.pick(['A', 'é', '\u202e', ' ', '&amp;', '\t']).repeat(size / 8);
      const piece = /<\w/.test(text) && rng.chance(0.6) ? `<x a="${filler}"/>` : filler;
      return {
        bytes: insertAt(
          input,
          tagBoundary(text, (n) => rng.below(n)),
          piece,
        ),
        note: `${size} bytes of filler`,
      };
    },
  },
  {
    name: 'text.entities',
    kinds: ['xfdf', 'xmp', 'svg', 'html', 'office'],
    weight: 2,
    apply(input, { rng }) {
      const text = input.toString('utf8');
      const declaration = rng.pick([
        '<!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;"><!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;">]>',
        '<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>',
        '<!DOCTYPE r [<!ENTITY % p SYSTEM "http://127.0.0.1:1/x.dtd"> %p;]>',
        '<!DOCTYPE r SYSTEM "http://127.0.0.1:1/x.dtd">',
      ]);
      const reference = declaration.includes('ENTITY e') ? '&e;' : declaration.includes('ENTITY x') ? '&x;' : '';
      const afterProlog = text.startsWith('<?xml') ? text.indexOf('?>') + 2 : 0;
      let out = text.slice(0, afterProlog) + declaration + text.slice(afterProlog);
      const at = out.indexOf('>', afterProlog + declaration.length);
      if (reference && at > 0) out = out.slice(0, at + 1) + reference + out.slice(at + 1);
      return { bytes: Buffer.from(out, 'utf8'), note: `DOCTYPE ${declaration.slice(10, 60)}` };
    },
  },
  {
    name: 'mail.mime',
    kinds: ['mail'],
    weight: 5,
    apply(input, { rng }) {
      const text = input.toString('latin1');
      const choice = rng.int(0, 3);
      if (choice === 0) {
        const depth = rng.pick([100, 1000, 5000]);
        let body = 'innermost';
        for (let i = depth; i > 0; i--) body = `Content-Type: multipart/mixed; boundary="b${i}"\r\n\r\n--b${i}\r\n${body}\r\n--b${i}--\r\n`;
        return { bytes: Buffer.from(`From: a@example.test\r\nSubject: nested\r\nMIME-Version: 1.0\r\n${body}`, 'latin1'), note: `multipart nested ${depth} deep` };
      }
      if (choice === 1) {
        const out = text.replace(/boundary="?([^"\r\n;]+)"?/, () => `boundary="${rng.pick(['', '-', 'x'.repeat(10_000), 'outer', '--'])}"`);
        return { bytes: Buffer.from(out, 'latin1'), note: 'boundary changed' };
      }
      if (choice === 2) {
        const out = text.replace(/Content-Transfer-Encoding: \S+/g, () => `Content-Transfer-Encoding: ${rng.pick(['base64', 'quoted-printable', 'x-uue', 'binary', 'bogus'])}`);
        return { bytes: Buffer.from(out, 'latin1'), note: 'transfer encodings changed' };
      }
      const parts = rng.pick([1000, 10_000]);
      const attachments = Array.from(
        { length: parts },
        (_, i) => `--outer\r\nContent-Type: application/pdf; name="p${i}.pdf"\r\nContent-Disposition: attachment; filename="p${i}.pdf"\r\n\r\n%PDF-1.4\r\n`,
      ).join('');
      const at = text.lastIndexOf('--outer--');
      if (at < 0) return undefined;
      return { bytes: Buffer.from(text.slice(0, at) + attachments + text.slice(at), 'latin1'), note: `${parts} attachments added` };
    },
  },
];
