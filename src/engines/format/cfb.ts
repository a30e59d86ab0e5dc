import type { FileHandle } from 'node:fs/promises';
import { readAt } from './read-at.js';

/**
 * Just enough of the Compound File Binary format ([MS-CFB]) to list the names in a file's
 * directory, which is what tells Word, Excel, PowerPoint and Outlook binaries apart.
 *
 * Everything is read with positioned reads and a byte budget, so a huge or hostile file (cyclic
 * sector chains, absurd sector numbers) costs at most MAX_BYTES of I/O.
 */

export const CFB_SIGNATURE = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

/** Total bytes read for FAT, DIFAT and directory sectors before giving up. */
const MAX_BYTES = 512 * 1024;
const HEADER_SIZE = 512;
const HEADER_DIFAT_ENTRIES = 109;
const DIR_ENTRY_SIZE = 128;
/** Sector numbers from 0xFFFFFFFA up are markers (ENDOFCHAIN, FREESECT, ...), not sectors. */
const MAX_REGULAR_SECTOR = 0xfffffff9;
const NO_STREAM = 0xffffffff;

export interface CfbDirectory {
  /** Names of the entries directly below the root storage. */
  readonly rootNames: readonly string[];
  /** Names of every directory entry that could be read, nested ones included. */
  readonly allNames: readonly string[];
}

interface DirEntry {
  name: string;
  type: number;
  left: number;
  right: number;
  child: number;
}

class BudgetExceeded extends Error {}

class CfbReader {
  private spent = 0;
  private readonly fatCache = new Map<number, Buffer>();
  private difatSectors: Buffer[] | undefined;

  constructor(
    private readonly handle: FileHandle,
    private readonly fileSize: number,
    private readonly header: Buffer,
    private readonly sectorSize: number,
  ) {}

  /** Reads one whole sector, or undefined when it lies outside the file. */
  async sector(sectorNumber: number): Promise<Buffer | undefined> {
    if (sectorNumber > MAX_REGULAR_SECTOR) return undefined;
    const offset = (sectorNumber + 1) * this.sectorSize; // sector 0 follows the header sector
    if (offset + this.sectorSize > this.fileSize) return undefined;
    this.spent += this.sectorSize;
    if (this.spent > MAX_BYTES) throw new BudgetExceeded();
    const data = await readAt(this.handle, offset, this.sectorSize);
    return data.length === this.sectorSize ? data : undefined;
  }

  /** The next sector of a chain, following the FAT. */
  async next(sectorNumber: number): Promise<number | undefined> {
    const perSector = this.sectorSize / 4;
    const fatIndex = Math.floor(sectorNumber / perSector);
    let fat = this.fatCache.get(fatIndex);
    if (!fat) {
      const location = await this.fatSectorLocation(fatIndex);
      if (location === undefined) return undefined;
      fat = await this.sector(location);
      if (!fat) return undefined;
      this.fatCache.set(fatIndex, fat);
    }
    return fat.readUInt32LE((sectorNumber % perSector) * 4);
  }

  /** Where the fatIndex-th FAT sector lives: in the header's DIFAT, then in the DIFAT sector chain. */
  private async fatSectorLocation(fatIndex: number): Promise<number | undefined> {
    if (fatIndex < HEADER_DIFAT_ENTRIES) return this.header.readUInt32LE(0x4c + fatIndex * 4);
    const perDifat = this.sectorSize / 4 - 1; // the last slot links to the next DIFAT sector
    const difatIndex = Math.floor((fatIndex - HEADER_DIFAT_ENTRIES) / perDifat);
    const sectors = await this.difatChain(difatIndex + 1);
    const difat = sectors[difatIndex];
    return difat?.readUInt32LE(((fatIndex - HEADER_DIFAT_ENTRIES) % perDifat) * 4);
  }

  /** Loads the DIFAT chain lazily, only as far as `count` sectors. */
  private async difatChain(count: number): Promise<Buffer[]> {
    if (!this.difatSectors) this.difatSectors = [];
    const sectors = this.difatSectors;
    const declared = this.header.readUInt32LE(0x48);
    let sectorNumber = sectors.length === 0 ? this.header.readUInt32LE(0x44) : sectors[sectors.length - 1]!.readUInt32LE(this.sectorSize - 4);
    while (sectors.length < count && sectors.length < declared) {
      const data = await this.sector(sectorNumber);
      if (!data) break;
      sectors.push(data);
      sectorNumber = data.readUInt32LE(this.sectorSize - 4);
    }
    return sectors;
  }
}

function parseEntry(sector: Buffer, offset: number): DirEntry {
  const nameBytes = Math.min(sector.readUInt16LE(offset + 0x40), 64);
  // The stored length counts the UTF-16 terminator; drop it and anything odd.
  const nameLength = Math.max(0, nameBytes - 2) & ~1;
  return {
    name: sector.toString('utf16le', offset, offset + nameLength),
    type: sector.readUInt8(offset + 0x42),
    left: sector.readUInt32LE(offset + 0x44),
    right: sector.readUInt32LE(offset + 0x48),
    child: sector.readUInt32LE(offset + 0x4c),
  };
}

/** Names below the root: walk the root's child tree by its left/right sibling links. */
function rootChildren(entries: readonly DirEntry[]): string[] {
  const root = entries[0];
  if (!root || root.type !== 5) return [];
  const names: string[] = [];
  const seen = new Set<number>();
  const pending = [root.child];
  while (pending.length > 0) {
    const id = pending.pop()!;
    if (id === NO_STREAM || seen.has(id)) continue;
    seen.add(id);
    const entry = entries[id];
    if (!entry || entry.type === 0) continue;
    names.push(entry.name);
    pending.push(entry.left, entry.right);
  }
  return names;
}

/**
 * Lists the directory of a compound file, or returns undefined when the header is not a usable
 * CFB header. A directory cut short by damage or by the read budget yields what was read.
 */
export async function readCfbDirectory(handle: FileHandle, fileSize: number): Promise<CfbDirectory | undefined> {
  const header = await readAt(handle, 0, HEADER_SIZE);
  if (header.length < HEADER_SIZE || !header.subarray(0, 8).equals(CFB_SIGNATURE)) return undefined;
  const sectorShift = header.readUInt16LE(0x1e);
  if (sectorShift !== 9 && sectorShift !== 12) return undefined; // v3 and v4 are the only versions
  const sectorSize = 1 << sectorShift;
  const reader = new CfbReader(handle, fileSize, header, sectorSize);

  const entries: DirEntry[] = [];
  const visited = new Set<number>();
  let sectorNumber = header.readUInt32LE(0x30);
  try {
    while (sectorNumber <= MAX_REGULAR_SECTOR && !visited.has(sectorNumber)) {
      visited.add(sectorNumber);
      const data = await reader.sector(sectorNumber);
      if (!data) break;
      for (let offset = 0; offset < sectorSize; offset += DIR_ENTRY_SIZE) entries.push(parseEntry(data, offset));
      const next = await reader.next(sectorNumber);
      if (next === undefined) break;
      sectorNumber = next;
    }
  } catch (error) {
    if (!(error instanceof BudgetExceeded)) throw error;
  }

  return {
    rootNames: rootChildren(entries),
    allNames: entries.filter((entry) => entry.type !== 0 && entry.name !== '').map((entry) => entry.name),
  };
}

export type CfbKind = 'doc' | 'xls' | 'ppt' | 'msg' | 'encrypted-ooxml';

/** Which application wrote the compound file, judged by its stream names. */
export function classifyCfbNames(names: readonly string[]): CfbKind | undefined {
  const has = (name: string): boolean => names.includes(name);
  if (has('WordDocument')) return 'doc';
  if (has('Workbook') || has('Book')) return 'xls'; // "Book" is the BIFF5 (Excel 5/95) stream
  if (has('PowerPoint Document')) return 'ppt';
  if (has('__properties_version1.0') || names.some((name) => name.startsWith('__substg1.0_'))) return 'msg';
  // Password-protected OOXML files are CFB containers holding the encrypted zip.
  if (has('EncryptedPackage') && has('EncryptionInfo')) return 'encrypted-ooxml';
  return undefined;
}

/** Classifies by the root-level names, falling back to all names when the root tree was unreadable. */
export function classifyCfb(directory: CfbDirectory): CfbKind | undefined {
  return classifyCfbNames(directory.rootNames) ?? (directory.rootNames.length === 0 ? classifyCfbNames(directory.allNames) : undefined);
}
