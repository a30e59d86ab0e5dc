import { describe, expect, it } from 'vitest';
import { UNKNOWN_FILE_TYPE, fileTypeByKey } from '../../../src/core/file-types.js';
import { documentNames, sanitizeClientFileName } from '../../../src/engines/format/detect-format.js';

const pdf = fileTypeByKey('pdf');

describe('sanitizeClientFileName', () => {
  it('keeps only the last path segment, for both separators', () => {
    expect(sanitizeClientFileName('../../etc/passwd')).toBe('passwd');
    expect(sanitizeClientFileName('C:\\temp\\a.pdf')).toBe('a.pdf');
    expect(sanitizeClientFileName('dir/sub\\mixed/name.txt')).toBe('name.txt');
    expect(sanitizeClientFileName('folder/')).toBe('');
  });

  it('removes control and bidi-override characters and trims', () => {
    expect(sanitizeClientFileName('a\u0000b\u001f\u007fc.pdf')).toBe('abc.pdf');
    expect(sanitizeClientFileName('  report.pdf \r\n')).toBe('report.pdf');
    expect(sanitizeClientFileName('invoice\u202efdp.exe')).toBe('invoicefdp.exe');
    // A control character must not smuggle a separator past the basename step.
    expect(sanitizeClientFileName('..\u0000/x.pdf')).toBe('x.pdf');
  });

  it('turns empty, missing and dot-only names into the empty string', () => {
    expect(sanitizeClientFileName(undefined)).toBe('');
    expect(sanitizeClientFileName('')).toBe('');
    expect(sanitizeClientFileName('   ')).toBe('');
    expect(sanitizeClientFileName('..')).toBe('');
    expect(sanitizeClientFileName('.')).toBe('');
    expect(sanitizeClientFileName('name.')).toBe('name');
  });

  it('caps the length at 255 characters but keeps the extension', () => {
    const long = `${'a'.repeat(300)}.pdf`;
    const clean = sanitizeClientFileName(long);
    expect(clean).toHaveLength(255);
    expect(clean.endsWith('.pdf')).toBe(true);
    // Counted in code points: a surrogate pair is never cut in half.
    const emoji = sanitizeClientFileName('😀'.repeat(300));
    expect(Array.from(emoji)).toHaveLength(255);
    expect(emoji).toBe('😀'.repeat(255));
  });
});

describe('documentNames', () => {
  it('keeps the client spelling when it names the detected type (lower case)', () => {
    expect(documentNames('photo.JPEG', fileTypeByKey('jpeg'))).toEqual({ fileName: 'photo', fileExtension: 'jpeg' });
    expect(documentNames('photo.JPG', fileTypeByKey('jpeg'))).toEqual({ fileName: 'photo', fileExtension: 'jpg' });
    expect(documentNames('scan.tif', fileTypeByKey('tiff'))).toEqual({ fileName: 'scan', fileExtension: 'tif' });
    expect(documentNames('Letter.Dot', fileTypeByKey('doc'))).toEqual({ fileName: 'Letter', fileExtension: 'dot' });
  });

  it('replaces an extension that contradicts the content', () => {
    expect(documentNames('report.docx', pdf)).toEqual({ fileName: 'report', fileExtension: 'pdf' });
    expect(documentNames('photo.png', fileTypeByKey('jpeg'))).toEqual({ fileName: 'photo', fileExtension: 'jpeg' });
    expect(documentNames('archive.tar.gz', fileTypeByKey('gz'))).toEqual({ fileName: 'archive.tar', fileExtension: 'gz' });
  });

  it('strips directories from the display name', () => {
    expect(documentNames('../../etc/passwd', pdf)).toEqual({ fileName: 'passwd', fileExtension: 'pdf' });
    expect(documentNames('C:\\temp\\a.pdf', pdf)).toEqual({ fileName: 'a', fileExtension: 'pdf' });
  });

  it('keeps the whole name when there is no extension', () => {
    expect(documentNames('README', fileTypeByKey('txt'))).toEqual({ fileName: 'README', fileExtension: 'txt' });
    expect(documentNames('.bashrc', fileTypeByKey('txt'))).toEqual({ fileName: '.bashrc', fileExtension: 'txt' });
    expect(documentNames('.bashrc', UNKNOWN_FILE_TYPE)).toEqual({ fileName: '.bashrc', fileExtension: '' });
    // Text after the last dot that is not a plausible extension belongs to the name.
    expect(documentNames('Minutes v2.5 final', pdf)).toEqual({ fileName: 'Minutes v2.5 final', fileExtension: 'pdf' });
  });

  it('keeps a sane client extension for unknown content', () => {
    expect(documentNames('data.BIN', UNKNOWN_FILE_TYPE)).toEqual({ fileName: 'data', fileExtension: 'bin' });
    expect(documentNames('data.tar-gz', UNKNOWN_FILE_TYPE)).toEqual({ fileName: 'data.tar-gz', fileExtension: '' });
    expect(documentNames('x.abcdefghijklmnopq', UNKNOWN_FILE_TYPE)).toEqual({ fileName: 'x.abcdefghijklmnopq', fileExtension: '' });
    expect(documentNames('x.abcdefghijklmnop', UNKNOWN_FILE_TYPE)).toEqual({ fileName: 'x', fileExtension: 'abcdefghijklmnop' });
  });

  it('names nameless documents "document"', () => {
    expect(documentNames(undefined, pdf)).toEqual({ fileName: 'document', fileExtension: 'pdf' });
    expect(documentNames('', UNKNOWN_FILE_TYPE)).toEqual({ fileName: 'document', fileExtension: '' });
    expect(documentNames('../', pdf)).toEqual({ fileName: 'document', fileExtension: 'pdf' });
    expect(documentNames('\u0000\u0001', pdf)).toEqual({ fileName: 'document', fileExtension: 'pdf' });
  });

  it('caps long names', () => {
    const { fileName, fileExtension } = documentNames(`${'b'.repeat(400)}.PDF`, pdf);
    expect(fileExtension).toBe('pdf');
    expect(fileName).toBe('b'.repeat(251));
  });
});
