import type { Static } from 'typebox';
import type { Options } from '../option-schema.js';
import type { ToolboxOperationName } from './operation.js';
import { annotationOptions } from './ops/annotation.schema.js';
import { attachmentOptions } from './ops/attachment.schema.js';
import { compressOptions } from './ops/compress.schema.js';
import { deleteOptions } from './ops/delete.schema.js';
import { descriptionOptions } from './ops/description.schema.js';
import { extractionOptions } from './ops/extraction.schema.js';
import { formsOptions } from './ops/forms.schema.js';
import { imageOptions } from './ops/image.schema.js';
import { mergeOptions } from './ops/merge.schema.js';
import { moveOptions } from './ops/move.schema.js';
import { optionsOptions } from './ops/options.schema.js';
import { outlineOptions } from './ops/outline.schema.js';
import { portfolioOptions } from './ops/portfolio.schema.js';
import { printOptions } from './ops/print.schema.js';
import { redactOptions } from './ops/redact.schema.js';
import { rotateOptions } from './ops/rotate.schema.js';
import { scaleOptions } from './ops/scale.schema.js';
import { securityOptions } from './ops/security.schema.js';
import { splitOptions } from './ops/split.schema.js';
import { transcribeOptions } from './ops/transcribe.schema.js';
import { watermarkOptions } from './ops/watermark.schema.js';
import { xmpOptions } from './ops/xmp.schema.js';

/**
 * The options schema of every toolbox operation, by its key in the request array (the order of the
 * reference). Each lives next to its operation (`ops/<name>.schema.ts`); http/schemas/toolbox.ts
 * wraps them into the `Operation_BaseToolbox` component.
 */
export const TOOLBOX_OPTION_SCHEMAS = {
  annotation: annotationOptions,
  attachment: attachmentOptions,
  delete: deleteOptions,
  description: descriptionOptions,
  extraction: extractionOptions,
  forms: formsOptions,
  image: imageOptions,
  merge: mergeOptions,
  move: moveOptions,
  options: optionsOptions,
  print: printOptions,
  rotate: rotateOptions,
  security: securityOptions,
  split: splitOptions,
  watermark: watermarkOptions,
  xmp: xmpOptions,
  outline: outlineOptions,
  redact: redactOptions,
  portfolio: portfolioOptions,
  scale: scaleOptions,
  compress: compressOptions,
  transcribe: transcribeOptions,
} satisfies Record<ToolboxOperationName, unknown>;

type Schemas = typeof TOOLBOX_OPTION_SCHEMAS;

/** One element of the request's `toolbox` array, as the client sends it (defaults not yet filled). */
export type ToolboxElement = { [K in ToolboxOperationName]?: Static<Schemas[K]> };

/** Each operation's options as it receives them: validated, defaults filled. */
export type ToolboxOptions = { [K in ToolboxOperationName]: Options<Schemas[K]> };
