import Type from 'typebox';
import { PdfPassword } from './document-operations.js';
import { Billing, Settings } from './converter.js';
import { component, ref } from './shared.js';
import { annotationOptions } from './toolbox/annotation.js';
import { attachmentOptions } from './toolbox/attachment.js';
import { compressOptions } from './toolbox/compress.js';
import { deleteOptions } from './toolbox/delete.js';
import { descriptionOptions } from './toolbox/description.js';
import { extractionOptions } from './toolbox/extraction.js';
import { formsOptions } from './toolbox/forms.js';
import { imageOptions } from './toolbox/image.js';
import { mergeOptions } from './toolbox/merge.js';
import { moveOptions } from './toolbox/move.js';
import { optionsOptions } from './toolbox/options.js';
import { outlineOptions } from './toolbox/outline.js';
import { portfolioOptions } from './toolbox/portfolio.js';
import { printOptions } from './toolbox/print.js';
import { redactOptions } from './toolbox/redact.js';
import { rotateOptions } from './toolbox/rotate.js';
import { scaleOptions } from './toolbox/scale.js';
import { securityOptions } from './toolbox/security.js';
import { splitOptions } from './toolbox/split.js';
import { transcribeOptions } from './toolbox/transcribe.js';
import { watermarkOptions } from './toolbox/watermark.js';
import { xmpOptions } from './toolbox/xmp.js';

/**
 * `Operation_BaseToolbox`: one element of the toolbox array, an object whose single key names the
 * operation (the service refuses elements with none or several known keys). Each operation's options
 * schema lives in `toolbox/<operation>.ts`.
 */
export const BaseToolbox = component(
  Type.Object(
    {
      annotation: Type.Optional(annotationOptions),
      attachment: Type.Optional(attachmentOptions),
      delete: Type.Optional(deleteOptions),
      description: Type.Optional(descriptionOptions),
      extraction: Type.Optional(extractionOptions),
      forms: Type.Optional(formsOptions),
      image: Type.Optional(imageOptions),
      merge: Type.Optional(mergeOptions),
      move: Type.Optional(moveOptions),
      options: Type.Optional(optionsOptions),
      print: Type.Optional(printOptions),
      rotate: Type.Optional(rotateOptions),
      security: Type.Optional(securityOptions),
      split: Type.Optional(splitOptions),
      watermark: Type.Optional(watermarkOptions),
      xmp: Type.Optional(xmpOptions),
      outline: Type.Optional(outlineOptions),
      redact: Type.Optional(redactOptions),
      portfolio: Type.Optional(portfolioOptions),
      scale: Type.Optional(scaleOptions),
      compress: Type.Optional(compressOptions),
      transcribe: Type.Optional(transcribeOptions),
    },
    { $id: 'Operation_BaseToolbox', minProperties: 1, description: 'One toolbox operation: an object with exactly one key naming it' },
  ),
);

export const ToolboxOperation = component(
  Type.Object(
    {
      toolbox: Type.Array(ref(BaseToolbox), { minItems: 1, maxItems: 100, description: 'the operations, run in this order as one transaction' }),
      password: Type.Optional(ref(PdfPassword)),
      billing: Type.Optional(ref(Billing)),
      settings: Type.Optional(ref(Settings)),
    },
    { $id: 'Operation_ToolboxOperation' },
  ),
);

export const ToolboxNewQuery = Type.Object({
  name: Type.Optional(Type.String({ default: 'empty.pdf', description: 'file name of the new document' })),
  history: Type.Optional(Type.Boolean({ default: false })),
});
