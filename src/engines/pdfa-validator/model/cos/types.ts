/**
 * The veraPDF Cos* types this folder builds, all claimed as implemented (`implementsType`): every object of the
 * type is yielded, so a rule on it that no object failed has passed. How the context-dependent ones are found
 * (walk.ts; model/cos/README.md has the table):
 * - CosFileSpecification: /Type /Filespec (as veraPDF) or a dictionary with /EF (which ISO 32000-1 requires to
 *   have that /Type: stricter);
 * - CosUnicodeName: /BaseFont and /FontName, Separation/DeviceN colourants and /Colorants keys, structure
 *   element /S (with or without /Type);
 * - CosBBox: the boundaries of every /Type /Page dictionary, MediaBox/CropBox inherited;
 * - CosBM: every name of a /BM value; CosRenderingIntent: every name under /RI (graphics states), an image's
 *   /Intent, `ri` operands and inline images' /Intent; CosLang: every /Lang string (dictionaries in content
 *   streams included); CosIIFilter: each filter of every inline image of the content streams read.
 * Each is looked for in every object of the file, used or not (stricter than veraPDF, which checks only the
 * resources a page uses).
 */
export const COS_TYPES: readonly string[] = [
  'CosDocument',
  'CosTrailer',
  'CosXRef',
  'CosIndirect',
  'CosStream',
  'CosDict',
  'CosArray',
  'CosString',
  'CosName',
  'CosInteger',
  'CosReal',
  'CosFilter',
  'CosFileSpecification',
  'CosUnicodeName',
  'CosBBox',
  'CosBM',
  'CosRenderingIntent',
  'CosLang',
  'CosIIFilter',
];
