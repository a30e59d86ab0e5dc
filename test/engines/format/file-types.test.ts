import { describe, expect, it } from 'vitest';
import { FILE_TYPES, UNKNOWN_FILE_TYPE, fileTypeByExtension, fileTypeById, fileTypeByKey } from '../../../src/core/file-types.js';

describe('file type table', () => {
  it('keeps the published ids (a failure here means a public contract was broken)', () => {
    const published: Record<string, number> = {
      pdf: 1,
      doc: 10,
      docx: 11,
      odt: 12,
      rtf: 13,
      dotx: 14,
      docm: 15,
      dotm: 16,
      ott: 17,
      xls: 20,
      xlsx: 21,
      ods: 22,
      csv: 23,
      xltx: 24,
      xlsm: 25,
      xltm: 26,
      ots: 27,
      tsv: 28,
      ppt: 30,
      pptx: 31,
      odp: 32,
      potx: 33,
      pptm: 34,
      potm: 35,
      ppsx: 36,
      ppsm: 37,
      otp: 38,
      png: 40,
      jpeg: 41,
      gif: 42,
      bmp: 43,
      tiff: 44,
      webp: 45,
      svg: 46,
      ico: 47,
      jp2: 48,
      txt: 60,
      html: 61,
      xml: 62,
      json: 63,
      md: 64,
      eml: 70,
      msg: 71,
      zip: 80,
      gz: 81,
      '7z': 82,
      tar: 83,
      rar: 84,
      bz2: 85,
      xz: 86,
      epub: 90,
      odg: 91,
      ps: 92,
      eps: 93,
    };
    // Every published id must still be there; new types may be added, but never renumbered.
    for (const [key, id] of Object.entries(published)) expect(fileTypeByKey(key).id, key).toBe(id);
    expect(UNKNOWN_FILE_TYPE).toMatchObject({ id: 0, key: 'unknown', extension: '', mimeType: 'application/octet-stream', groups: [] });
  });

  it('has unique ids, keys and extensions, all lower case', () => {
    const ids = FILE_TYPES.map((t) => t.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).not.toContain(0);
    const extensions = FILE_TYPES.flatMap((t) => [t.extension, ...t.aliases]);
    expect(new Set(extensions).size).toBe(extensions.length);
    for (const t of FILE_TYPES) {
      expect(t.key).toBe(t.extension);
      expect(t.extension).toMatch(/^[a-z0-9]+$/);
      for (const alias of t.aliases) expect(alias).toMatch(/^[a-z0-9]+$/);
      for (const group of t.groups) expect(group).toMatch(/^[a-z]+$/);
      expect(t.groups.length).toBeGreaterThan(0);
      expect(t.mimeType).toMatch(/^[a-z]+\/[\w.+-]+$/i);
    }
  });

  it('puts documents in the groups engines select by', () => {
    expect(fileTypeByKey('docx').groups).toEqual(expect.arrayContaining(['office', 'word']));
    expect(fileTypeByKey('xlsx').groups).toEqual(expect.arrayContaining(['office', 'excel']));
    expect(fileTypeByKey('ppt').groups).toEqual(expect.arrayContaining(['office', 'powerpoint']));
    expect(fileTypeByKey('odt').groups).toEqual(expect.arrayContaining(['office', 'opendocument']));
    expect(fileTypeByKey('html').groups).toEqual(expect.arrayContaining(['text', 'html']));
    expect(fileTypeByKey('svg').groups).toEqual(expect.arrayContaining(['image', 'xml']));
    expect(fileTypeByKey('msg').groups).toContain('mail');
    expect(fileTypeByKey('zip').groups).toContain('archive');
    expect(fileTypeByKey('pdf').groups).toEqual(['pdf']);
  });

  it('is frozen', () => {
    expect(Object.isFrozen(FILE_TYPES)).toBe(true);
    expect(Object.isFrozen(fileTypeByKey('pdf'))).toBe(true);
    expect(Object.isFrozen(fileTypeByKey('jpeg').aliases)).toBe(true);
  });

  it('looks types up by key, id and extension', () => {
    expect(fileTypeByKey('unknown')).toBe(UNKNOWN_FILE_TYPE);
    expect(() => fileTypeByKey('exe')).toThrow(/unknown file type key/);
    expect(fileTypeById(1)?.key).toBe('pdf');
    expect(fileTypeById(0)).toBe(UNKNOWN_FILE_TYPE);
    expect(fileTypeById(9999)).toBeUndefined();
    expect(fileTypeByExtension('JPG')?.key).toBe('jpeg');
    expect(fileTypeByExtension('.tif')?.key).toBe('tiff');
    expect(fileTypeByExtension('htm')?.key).toBe('html');
    expect(fileTypeByExtension('log')?.key).toBe('txt');
    expect(fileTypeByExtension('dot')?.key).toBe('doc');
    expect(fileTypeByExtension('exe')).toBeUndefined();
    expect(fileTypeByExtension('')).toBeUndefined();
  });
});
