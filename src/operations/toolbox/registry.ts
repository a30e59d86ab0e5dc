import type { ToolboxRegistry } from './toolbox-service.js';

/** Every toolbox operation by its key in the request array, its module loaded on first use (see ToolboxRegistry). */
export const TOOLBOX_REGISTRY: ToolboxRegistry = {
  annotation: async () => (await import('./ops/annotation.js')).annotationOperation,
  attachment: async () => (await import('./ops/attachment.js')).attachmentOperation,
  delete: async () => (await import('./ops/delete.js')).deleteOperation,
  description: async () => (await import('./ops/description.js')).descriptionOperation,
  extraction: async () => (await import('./ops/extraction.js')).extractionOperation,
  forms: async () => (await import('./ops/forms.js')).formsOperation,
  image: async () => (await import('./ops/image.js')).imageOperation,
  merge: async () => (await import('./ops/merge.js')).mergeOperation,
  move: async () => (await import('./ops/move.js')).moveOperation,
  options: async () => (await import('./ops/options.js')).optionsOperation,
  print: async () => (await import('./ops/print.js')).printOperation,
  rotate: async () => (await import('./ops/rotate.js')).rotateOperation,
  security: async () => (await import('./ops/security.js')).securityOperation,
  split: async () => (await import('./ops/split.js')).splitOperation,
  watermark: async () => (await import('./ops/watermark.js')).watermarkOperation,
  xmp: async () => (await import('./ops/xmp.js')).xmpOperation,
  outline: async () => (await import('./ops/outline.js')).outlineOperation,
  redact: async () => (await import('./ops/redact.js')).redactOperation,
  portfolio: async () => (await import('./ops/portfolio.js')).portfolioOperation,
  scale: async () => (await import('./ops/scale.js')).scaleOperation,
  compress: async () => (await import('./ops/compress.js')).compressOperation,
  transcribe: async () => (await import('./ops/transcribe.js')).transcribeOperation,
};
