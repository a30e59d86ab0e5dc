import fs from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { classifyCfbNames, readCfbDirectory } from '../../../src/engines/format/cfb.js';
import { detectFormat } from '../../../src/engines/format/detect-format.js';
import { streams, writeCfb } from './fixtures.js';
import type { CfbNode, CfbOptions } from './fixtures.js';
import { useTempDir } from '../../helpers/temp-dir.js';

const dir = useTempDir('format');

let counter = 0;
async function detectCfb(children: CfbNode[], clientFileName?: string, options?: CfbOptions): Promise<string> {
  const file = writeCfb(path.join(dir, `cfb-${counter++}.bin`), children, options);
  return (await detectFormat(file, clientFileName)).key;
}

const WORD = streams('\u0001CompObj', '\u0005SummaryInformation', 'WordDocument', '1Table', 'Data');
const EXCEL = streams('\u0001CompObj', 'Workbook', '\u0005SummaryInformation');
const POWERPOINT = streams('Current User', 'PowerPoint Document', 'Pictures');
const OUTLOOK: CfbNode[] = [
  { name: '__nameid_version1.0', children: streams('__substg1.0_00020102') },
  { name: '__recip_version1.0_#00000000', children: streams('__substg1.0_3001001F') },
  ...streams('__substg1.0_0037001F', '__substg1.0_1000001F', '__properties_version1.0'),
];

describe('compound files (old MS Office binaries)', () => {
  it('tells Word, Excel, PowerPoint and Outlook apart by stream names', async () => {
    expect(await detectCfb(WORD)).toBe('doc');
    expect(await detectCfb(EXCEL)).toBe('xls');
    expect(await detectCfb(streams('Book'))).toBe('xls'); // Excel 5/95
    expect(await detectCfb(POWERPOINT)).toBe('ppt');
    expect(await detectCfb(OUTLOOK)).toBe('msg');
    expect(await detectCfb(streams('__substg1.0_0037001F'))).toBe('msg');
  });

  it('decides by content, not by the client name', async () => {
    expect(await detectCfb(EXCEL, 'letter.doc')).toBe('xls');
    expect(await detectCfb(WORD, 'sheet.xls')).toBe('doc');
  });

  it('follows a directory that spans several sectors through the FAT', async () => {
    // 16 names need 5 directory sectors of 4 entries; WordDocument lands in a later one.
    const many = [...streams(...Array.from({ length: 15 }, (_, i) => `Stream${i}`)), { name: 'WordDocument' }];
    expect(await detectCfb(many)).toBe('doc');
    const file = writeCfb(path.join(dir, 'many.bin'), many);
    const handle = await open(file, 'r');
    try {
      const directory = await readCfbDirectory(handle, fs.statSync(file).size);
      expect(directory?.rootNames).toHaveLength(16);
      expect(directory?.rootNames).toEqual(expect.arrayContaining(['Stream0', 'Stream14', 'WordDocument']));
    } finally {
      await handle.close();
    }
  });

  it('reads version 4 files (4096-byte sectors)', async () => {
    expect(await detectCfb(POWERPOINT, undefined, { sectorShift: 12 })).toBe('ppt');
  });

  it('finds FAT sectors listed in a DIFAT sector', async () => {
    expect(await detectCfb(streams('Workbook'), undefined, { farDirectory: true })).toBe('xls');
  });

  it('stops on a cyclic directory chain', async () => {
    const many = streams(...Array.from({ length: 10 }, (_, i) => `S${i}`), 'PowerPoint Document');
    expect(await detectCfb(many, undefined, { cyclicDirectory: true })).toBe('ppt');
  });

  it('ignores application streams that are only nested in a sub-storage', async () => {
    const embedding: CfbNode[] = [{ name: 'ObjectPool', children: [{ name: '_1234', children: streams('WordDocument') }] }];
    expect(await detectCfb(embedding)).toBe('unknown');
  });

  it('falls back to the client extension only for compound-file types', async () => {
    const other = streams('SomethingElse');
    expect(await detectCfb(other)).toBe('unknown');
    expect(await detectCfb(other, 'old.XLS')).toBe('xls');
    expect(await detectCfb(other, 'letter.dot')).toBe('doc');
    expect(await detectCfb(other, 'slides.pot')).toBe('ppt');
    expect(await detectCfb(other, 'mail.msg')).toBe('msg');
    expect(await detectCfb(other, 'report.pdf')).toBe('unknown');
    expect(await detectCfb(other, 'installer.msi')).toBe('unknown');
  });

  it('takes the OOXML type from the name for password-protected OOXML containers', async () => {
    const encrypted = streams('EncryptionInfo', 'EncryptedPackage', '\u0006DataSpaces');
    expect(await detectCfb(encrypted, 'secret.xlsx')).toBe('xlsx');
    expect(await detectCfb(encrypted, 'secret.docx')).toBe('docx');
    expect(await detectCfb(encrypted, 'secret.doc')).toBe('unknown');
    expect(await detectCfb(encrypted)).toBe('unknown');
  });

  it('survives a damaged header', async () => {
    const file = writeCfb(path.join(dir, 'damaged.bin'), WORD);
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, Buffer.from([0x07, 0x00]), 0, 2, 0x1e); // impossible sector shift
    fs.closeSync(fd);
    expect((await detectFormat(file, 'x.doc')).key).toBe('doc'); // undecidable: client extension
    expect((await detectFormat(file)).key).toBe('unknown');

    const truncated = path.join(dir, 'truncated.bin');
    fs.writeFileSync(truncated, fs.readFileSync(writeCfb(path.join(dir, 'whole.bin'), WORD)).subarray(0, 600));
    expect((await detectFormat(truncated)).key).toBe('unknown');
  });

  it('classifies name lists', () => {
    expect(classifyCfbNames(['WordDocument', '1Table'])).toBe('doc');
    expect(classifyCfbNames(['Workbook'])).toBe('xls');
    expect(classifyCfbNames(['PowerPoint Document'])).toBe('ppt');
    expect(classifyCfbNames(['__properties_version1.0'])).toBe('msg');
    expect(classifyCfbNames(['Contents'])).toBeUndefined();
  });
});
