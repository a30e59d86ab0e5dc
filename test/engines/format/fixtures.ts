/**
 * Fixture builders for the format tests. Everything is generated into a temp directory: small
 * valid files written as bytes, zip packages built by python3's zipfile, and compound files
 * written by hand (python has no CFB writer, and writing one here also exercises the parser).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export function makeTempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'quire-format-'));
}

export function writeFixture(dir: string, name: string, content: string | Uint8Array): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, content);
  return file;
}

/** A minimal but well-formed PDF: one empty page, with a correct xref table. */
export function minimalPdf(): Buffer {
  const objects = ['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>'];
  let body = '%PDF-1.7\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(Buffer.byteLength(body, 'latin1'));
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = Buffer.byteLength(body, 'latin1');
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

export const PNG_1X1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
export const GIF_1X1 = Buffer.from('R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64');
export const WEBP_1X1 = Buffer.from('UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==', 'base64');
export const JPEG_1X1 = Buffer.from(
  '/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=',
  'base64',
);

/** 1x1 24-bit BMP with a BITMAPINFOHEADER. */
export function bmp1x1(): Buffer {
  const b = Buffer.alloc(58);
  b.write('BM', 0, 'latin1');
  b.writeUInt32LE(58, 2);
  b.writeUInt32LE(54, 10); // pixel data offset
  b.writeUInt32LE(40, 14); // DIB header size
  b.writeInt32LE(1, 18);
  b.writeInt32LE(1, 22);
  b.writeUInt16LE(1, 26); // planes
  b.writeUInt16LE(24, 28); // bits per pixel
  b.writeUInt32LE(4, 34); // image size
  return b;
}

/** Little-endian TIFF with one IFD holding ImageWidth, ImageLength. */
export function tiffMinimal(): Buffer {
  const b = Buffer.alloc(8 + 2 + 2 * 12 + 4);
  b.write('II', 0, 'latin1');
  b.writeUInt16LE(42, 2);
  b.writeUInt32LE(8, 4);
  b.writeUInt16LE(2, 8);
  [
    [256, 1],
    [257, 1],
  ].forEach(([tag, value], index) => {
    const at = 10 + index * 12;
    b.writeUInt16LE(tag!, at);
    b.writeUInt16LE(3, at + 2); // SHORT
    b.writeUInt32LE(1, at + 4);
    b.writeUInt16LE(value!, at + 8);
  });
  return b;
}

/** ICO header with one 1x1 entry. */
export function icoMinimal(): Buffer {
  const b = Buffer.alloc(6 + 16 + 40);
  b.writeUInt16LE(0, 0);
  b.writeUInt16LE(1, 2); // type: icon
  b.writeUInt16LE(1, 4); // one image
  b.writeUInt8(1, 6);
  b.writeUInt8(1, 7);
  b.writeUInt16LE(1, 10);
  b.writeUInt16LE(32, 12);
  b.writeUInt32LE(40, 14);
  b.writeUInt32LE(22, 18);
  b.writeUInt32LE(40, 22);
  return b;
}

const PYTHON_ZIP = `
import json, sys, zipfile
entries = json.load(sys.stdin)
with zipfile.ZipFile(sys.argv[1], 'w') as archive:
    for name, content, stored in entries:
        info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED
        archive.writestr(info, content)
`;

/** [name, content, stored?] in archive order. */
export type ZipEntry = [string, string, boolean?];

export function writeZip(file: string, entries: readonly ZipEntry[]): string {
  const normalized = entries.map(([name, content, stored]) => [name, content, stored ?? false]);
  execFileSync('python3', ['-c', PYTHON_ZIP, file], { input: JSON.stringify(normalized) });
  return file;
}

export function writeTar(file: string, memberName: string, content: string): string {
  const script = `
import io, sys, tarfile
data = sys.argv[3].encode()
with tarfile.open(sys.argv[1], 'w') as archive:
    info = tarfile.TarInfo(sys.argv[2]); info.size = len(data)
    archive.addfile(info, io.BytesIO(data))
`;
  execFileSync('python3', ['-c', script, file, memberName, content]);
  return file;
}

/** An OOXML package whose [Content_Types].xml declares `mainContentType` for `partName`. */
export function ooxmlEntries(partName: string, mainContentType: string): ZipEntry[] {
  const contentTypes =
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
    '<Default Extension="xml" ContentType="application/xml"/>' +
    `<Override PartName="/${partName}" ContentType="${mainContentType}"/>` +
    '</Types>';
  const rels =
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
    `<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="${partName}"/>` +
    '</Relationships>';
  return [
    ['[Content_Types].xml', contentTypes],
    ['_rels/.rels', rels],
    [partName, '<?xml version="1.0"?><root/>'],
  ];
}

/** An ODF package: the `mimetype` entry first and stored, as the spec demands. */
export function odfEntries(mimeType: string): ZipEntry[] {
  return [
    ['mimetype', mimeType, true],
    ['META-INF/manifest.xml', '<?xml version="1.0"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"/>'],
    ['content.xml', '<?xml version="1.0"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"/>'],
  ];
}

// ---- Compound File Binary ------------------------------------------------------------------------

const ENDOFCHAIN = 0xfffffffe;
const FREESECT = 0xffffffff;
const FATSECT = 0xfffffffd;
const DIFSECT = 0xfffffffc;
const NOSTREAM = 0xffffffff;

/** A directory entry: a stream, or a storage when it has children. */
export interface CfbNode {
  name: string;
  children?: CfbNode[];
}

export interface CfbOptions {
  /** 9: version 3 (512-byte sectors), 12: version 4 (4096-byte sectors). */
  sectorShift?: 9 | 12;
  /**
   * Put the (single) directory sector so far into the file that its FAT sector must be found
   * through a DIFAT sector rather than the header. Only with sectorShift 9 and at most 3 entries.
   */
  farDirectory?: boolean;
  /** Make the directory chain point back to its own first sector. */
  cyclicDirectory?: boolean;
}

interface CfbImage {
  sectorSize: number;
  header: Buffer;
  sectors: Map<number, Buffer>;
  size: number;
}

/** Flattens the tree into directory entries (id 0 is the root), siblings linked by right pointers. */
function directoryEntries(children: readonly CfbNode[]): Buffer[] {
  const entries: Buffer[] = [];
  const entry = (name: string, type: number): Buffer => {
    const b = Buffer.alloc(128);
    const encoded = Buffer.from(name, 'utf16le');
    encoded.copy(b, 0);
    b.writeUInt16LE(encoded.length + 2, 0x40);
    b.writeUInt8(type, 0x42);
    b.writeUInt8(1, 0x43); // black
    b.writeUInt32LE(NOSTREAM, 0x44);
    b.writeUInt32LE(NOSTREAM, 0x48);
    b.writeUInt32LE(NOSTREAM, 0x4c);
    b.writeUInt32LE(ENDOFCHAIN, 0x74);
    entries.push(b);
    return b;
  };
  const addSiblings = (nodes: readonly CfbNode[]): number => {
    let previous: Buffer | undefined;
    let first = NOSTREAM;
    for (const node of nodes) {
      const id = entries.length;
      const b = entry(node.name, node.children ? 1 : 2);
      if (previous) previous.writeUInt32LE(id, 0x48);
      else first = id;
      previous = b;
      if (node.children) b.writeUInt32LE(addSiblings(node.children), 0x4c);
    }
    return first;
  };
  const root = entry('Root Entry', 5);
  root.writeUInt32LE(addSiblings(children), 0x4c);
  return entries;
}

function buildCfb(children: readonly CfbNode[], options: CfbOptions): CfbImage {
  const sectorShift = options.sectorShift ?? 9;
  const sectorSize = 1 << sectorShift;
  const perSector = sectorSize / 128;
  const perFat = sectorSize / 4;
  const entries = directoryEntries(children);
  while (entries.length % perSector !== 0) {
    const unused = Buffer.alloc(128);
    unused.writeUInt32LE(NOSTREAM, 0x44);
    unused.writeUInt32LE(NOSTREAM, 0x48);
    unused.writeUInt32LE(NOSTREAM, 0x4c);
    entries.push(unused);
  }
  const dirSectorCount = entries.length / perSector;
  const sectors = new Map<number, Buffer>();
  const header = Buffer.alloc(512);
  Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]).copy(header, 0);
  header.writeUInt16LE(0x3e, 0x18);
  header.writeUInt16LE(sectorShift === 9 ? 3 : 4, 0x1a);
  header.writeUInt16LE(0xfffe, 0x1c);
  header.writeUInt16LE(sectorShift, 0x1e);
  header.writeUInt16LE(6, 0x20);
  header.writeUInt32LE(4096, 0x38);
  header.writeUInt32LE(ENDOFCHAIN, 0x3c);
  header.writeUInt32LE(ENDOFCHAIN, 0x44);
  for (let i = 0; i < 109; i++) header.writeUInt32LE(FREESECT, 0x4c + i * 4);
  const fat0 = Buffer.alloc(sectorSize, 0xff);
  fat0.writeUInt32LE(FATSECT, 0);
  header.writeUInt32LE(0, 0x4c); // FAT sector 0 lives in sector 0
  sectors.set(0, fat0);

  if (options.farDirectory) {
    if (sectorShift !== 9 || dirSectorCount !== 1) throw new Error('farDirectory needs v3 and one directory sector');
    const fatIndex = 110; // beyond the 109 FAT locations the header can hold
    const dirSector = fatIndex * perFat + 5;
    const difat = Buffer.alloc(sectorSize, 0xff);
    difat.writeUInt32LE(2, (fatIndex - 109) * 4); // FAT sector #110 is sector 2
    difat.writeUInt32LE(ENDOFCHAIN, sectorSize - 4);
    const farFat = Buffer.alloc(sectorSize, 0xff);
    farFat.writeUInt32LE(ENDOFCHAIN, (dirSector % perFat) * 4);
    fat0.writeUInt32LE(DIFSECT, 4);
    fat0.writeUInt32LE(FATSECT, 8);
    sectors.set(1, difat);
    sectors.set(2, farFat);
    sectors.set(dirSector, Buffer.concat(entries));
    header.writeUInt32LE(2, 0x2c);
    header.writeUInt32LE(dirSector, 0x30);
    header.writeUInt32LE(1, 0x44);
    header.writeUInt32LE(1, 0x48);
    return { sectorSize, header, sectors, size: (dirSector + 2) * sectorSize };
  }

  // Directory sectors are laid out back to front (chain k, k-1, ..., 1) so that reading them in
  // file order would give the wrong entry ids: only following the FAT gets this right.
  const chain = Array.from({ length: dirSectorCount }, (_, i) => dirSectorCount - i);
  chain.forEach((sectorNumber, position) => {
    sectors.set(sectorNumber, Buffer.concat(entries.slice(position * perSector, (position + 1) * perSector)));
    const next = options.cyclicDirectory && position === chain.length - 1 ? chain[0]! : (chain[position + 1] ?? ENDOFCHAIN);
    fat0.writeUInt32LE(next, sectorNumber * 4);
  });
  header.writeUInt32LE(1, 0x2c);
  header.writeUInt32LE(chain[0]!, 0x30);
  if (sectorShift === 12) header.writeUInt32LE(dirSectorCount, 0x28);
  return { sectorSize, header, sectors, size: (dirSectorCount + 2) * sectorSize };
}

/** Writes a compound file whose root holds `children`; large layouts are written sparse. */
export function writeCfb(file: string, children: readonly CfbNode[], options: CfbOptions = {}): string {
  const image = buildCfb(children, options);
  const fd = fs.openSync(file, 'w');
  try {
    fs.writeSync(fd, image.header, 0, image.header.length, 0);
    for (const [sectorNumber, data] of image.sectors) fs.writeSync(fd, data, 0, data.length, (sectorNumber + 1) * image.sectorSize);
    fs.ftruncateSync(fd, image.size);
  } finally {
    fs.closeSync(fd);
  }
  return file;
}

export const streams = (...names: string[]): CfbNode[] => names.map((name) => ({ name }));
