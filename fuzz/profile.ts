/**
 * The server configuration of fuzz runs. Shorter timeouts than the stock ones (toolbox 300 s,
 * LibreOffice 120 s, ocr 600 s, barcode 300 s, signature 120 s) so that a hang costs a minute rather than five; the invariants use whatever
 * the server is configured with (fuzz/limits.ts). `--stock-config` runs the stock configuration.
 * Sessions live a day so that a long run keeps its sentinel session.
 */
export const FUZZ_PROFILE: Record<string, string> = {
  QUIRE_TOOLBOX__TIMEOUT: '60',
  QUIRE_ENGINES__LIBREOFFICE__TIMEOUT: '60',
  QUIRE_ENGINES__CHROMIUM__TIMEOUT: '60',
  QUIRE_OCR__TIMEOUT: '60',
  QUIRE_BARCODE__TIMEOUT: '60',
  QUIRE_SIGNATURE__TIMEOUT: '60',
  QUIRE_SESSION__LIFETIME: '86400',
};

/** Memory bounds (bytes): the server, any child, and the hard limit above which a child is killed. */
export const DEFAULT_BOUNDS = {
  serverBytes: 1536 * 1024 * 1024,
  childBytes: 1536 * 1024 * 1024,
  killChildBytes: 4096 * 1024 * 1024,
};
