import type { DetectedCode } from './detect.js';

/**
 * The detection report: the document `detect` leaves behind (reference §5.4), JSON (default) or XML
 * with the same content. Schema: docs/barcode.md.
 */
export function writeDetectionReport(codes: readonly DetectedCode[], source: { document: string; inputFormat: string }, format: 'json' | 'xml'): { bytes: Buffer; extension: 'json' | 'xml' } {
  if (format === 'json') {
    const report = { barcodes: { document: source.document, inputFormat: source.inputFormat, count: codes.length, results: codes } };
    return { bytes: Buffer.from(`${JSON.stringify(report, null, 2)}\n`, 'utf8'), extension: 'json' };
  }
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>', `<barcodes document="${attr(source.document)}" inputFormat="${attr(source.inputFormat)}" count="${codes.length}">`];
  for (const code of codes) {
    const p = code.position;
    lines.push(
      `  <barcode format="${attr(code.format)}" page="${code.page}" rotation="${code.rotation}"${code.errorCorrection ? ` errorCorrection="${attr(code.errorCorrection)}"` : ''}>`,
      `    <value>${text(code.value)}</value>`,
      `    <raw>${code.raw}</raw>`,
      `    <position x="${p.x}" y="${p.y}" width="${p.width}" height="${p.height}" metrics="${p.metrics}" coordinates="${p.coordinates}"/>`,
      '  </barcode>',
    );
  }
  lines.push('</barcodes>', '');
  return { bytes: Buffer.from(lines.join('\n'), 'utf8'), extension: 'xml' };
}

/** XML 1.0 cannot carry most control characters even escaped: they are written as U+FFFD (the raw Base64 keeps the bytes). */
function text(value: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing what XML 1.0 forbids.
  return value
    .replace(/[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]/g, '\ufffd')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

function attr(value: string): string {
  return text(value).replace(/"/g, '&quot;');
}
