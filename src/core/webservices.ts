/**
 * The web services of reference §7 (`Webservice`): a call under `{restBase}/<name>/` is one of
 * their operations. The HTTP observer, the statistics and the routes share this one list.
 */
export const WEBSERVICES = ['signature', 'pdfa', 'toolbox', 'converter', 'urlconverter', 'ocr', 'barcode'] as const;
export type WebserviceName = (typeof WEBSERVICES)[number];

const NAMES: ReadonlySet<string> = new Set(WEBSERVICES);

export function isWebservice(name: string): name is WebserviceName {
  return NAMES.has(name);
}
