import { describe, expect, it } from 'vitest';
import { archiveSignature, isArchiveName, isCompressedType, uniqueEntryNames, unsafeNameReason } from '../../../src/engines/archive/names.js';

describe('entry names', () => {
  it('accepts plain relative paths and directories', () => {
    for (const name of ['a.txt', 'docs/a.pdf', 'docs/', 'a b/ü €.txt', '.hidden', 'a..b/c...d', 'x'.repeat(1024)]) {
      expect(unsafeNameReason(name), name).toBeUndefined();
    }
  });

  it('refuses zip-slip and other unsafe names', () => {
    const cases: Array<[string, RegExp]> = [
      ['../evil.txt', /parent directory/],
      ['a/../../b', /parent directory/],
      ['a/..', /parent directory/],
      ['/etc/passwd', /absolute/],
      ['C:\\x', /backslash/],
      ['C:x', /drive letter/],
      ['c:/windows/x', /drive letter/],
      ['..\\evil.txt', /backslash/],
      ['a\\b', /backslash/],
      ['a\u0000.txt', /NUL/],
      ['a\nb', /control/],
      ['a\u0085b', /control/],
      ['', /empty name/],
      ['a//b', /empty path segment/],
      ['./a', /current directory/],
      ['//server/share', /absolute/],
      ['x'.repeat(1025), /longer than 1024/],
    ];
    for (const [name, reason] of cases) expect(unsafeNameReason(name), JSON.stringify(name)).toMatch(reason);
  });

  it('makes names unique as "name (n).ext", case-insensitively, never taking a name of the input', () => {
    expect(uniqueEntryNames(['a.pdf', 'b.pdf', 'a.pdf', 'A.PDF', 'a (2).pdf'])).toEqual(['a.pdf', 'b.pdf', 'a (3).pdf', 'A (4).PDF', 'a (2).pdf']);
    expect(uniqueEntryNames(['x', 'x', '.profile', '.profile', 'd/a.tar.gz', 'd/a.tar.gz'])).toEqual(['x', 'x (2)', '.profile', '.profile (2)', 'd/a.tar.gz', 'd/a.tar (2).gz']);
    expect(uniqueEntryNames([])).toEqual([]);
  });

  it('classifies archive names, signatures and compressed types', () => {
    expect(isArchiveName('in/inner.ZIP')).toBe(true);
    expect(isArchiveName('a.tar.gz')).toBe(true);
    expect(isArchiveName('report.docx')).toBe(false);
    expect(isArchiveName('.zip')).toBe(false);
    expect(archiveSignature(Buffer.from('PK\u0003\u0004rest', 'latin1'))).toBe('zip');
    expect(archiveSignature(Buffer.from([0x1f, 0x8b, 0x08, 0]))).toBe('gzip');
    expect(archiveSignature(Buffer.from('BZh9xyz'))).toBe('bzip2');
    expect(archiveSignature(Buffer.from('BZhello'))).toBeUndefined();
    const tar = Buffer.alloc(512);
    tar.write('ustar', 257, 'latin1');
    expect(archiveSignature(tar)).toBe('tar');
    expect(archiveSignature(Buffer.from('%PDF-1.7'))).toBeUndefined();
    expect(isCompressedType('a/b.PDF')).toBe(true);
    expect(isCompressedType('b.txt')).toBe(false);
  });
});
