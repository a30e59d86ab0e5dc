import { annotationOperation } from './ops/annotation.js';
import { attachmentOperation } from './ops/attachment.js';
import { compressOperation } from './ops/compress.js';
import { deleteOperation } from './ops/delete.js';
import { descriptionOperation } from './ops/description.js';
import { extractionOperation } from './ops/extraction.js';
import { formsOperation } from './ops/forms.js';
import { imageOperation } from './ops/image.js';
import { mergeOperation } from './ops/merge.js';
import { moveOperation } from './ops/move.js';
import { optionsOperation } from './ops/options.js';
import { outlineOperation } from './ops/outline.js';
import { portfolioOperation } from './ops/portfolio.js';
import { printOperation } from './ops/print.js';
import { redactOperation } from './ops/redact.js';
import { rotateOperation } from './ops/rotate.js';
import { scaleOperation } from './ops/scale.js';
import { securityOperation } from './ops/security.js';
import { splitOperation } from './ops/split.js';
import { transcribeOperation } from './ops/transcribe.js';
import { watermarkOperation } from './ops/watermark.js';
import { xmpOperation } from './ops/xmp.js';
import type { ToolboxRegistry } from './toolbox-service.js';

/** Every toolbox operation by its key in the request array. */
export const TOOLBOX_REGISTRY: ToolboxRegistry = {
  annotation: annotationOperation,
  attachment: attachmentOperation,
  delete: deleteOperation,
  description: descriptionOperation,
  extraction: extractionOperation,
  forms: formsOperation,
  image: imageOperation,
  merge: mergeOperation,
  move: moveOperation,
  options: optionsOperation,
  print: printOperation,
  rotate: rotateOperation,
  security: securityOperation,
  split: splitOperation,
  watermark: watermarkOperation,
  xmp: xmpOperation,
  outline: outlineOperation,
  redact: redactOperation,
  portfolio: portfolioOperation,
  scale: scaleOperation,
  compress: compressOperation,
  transcribe: transcribeOperation,
};
