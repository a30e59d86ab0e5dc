import Type from 'typebox';
import { PdfPassword } from './document-operations.js';
import { Billing, Settings } from './converter.js';
import { component, ref } from './shared.js';
import { TOOLBOX_OPTION_SCHEMAS as op } from '../../operations/toolbox/schemas.js';

/**
 * `Operation_BaseToolbox`: one element of the toolbox array, an object whose single key names the
 * operation (the service refuses elements with none or several known keys). Each operation's options
 * schema lives next to the operation, in `operations/toolbox/ops/<operation>.schema.ts`.
 */
export const BaseToolbox = component(
  Type.Object(
    {
      annotation: Type.Optional(op.annotation),
      attachment: Type.Optional(op.attachment),
      delete: Type.Optional(op.delete),
      description: Type.Optional(op.description),
      extraction: Type.Optional(op.extraction),
      forms: Type.Optional(op.forms),
      image: Type.Optional(op.image),
      merge: Type.Optional(op.merge),
      move: Type.Optional(op.move),
      options: Type.Optional(op.options),
      print: Type.Optional(op.print),
      rotate: Type.Optional(op.rotate),
      security: Type.Optional(op.security),
      split: Type.Optional(op.split),
      watermark: Type.Optional(op.watermark),
      xmp: Type.Optional(op.xmp),
      outline: Type.Optional(op.outline),
      redact: Type.Optional(op.redact),
      portfolio: Type.Optional(op.portfolio),
      scale: Type.Optional(op.scale),
      compress: Type.Optional(op.compress),
      transcribe: Type.Optional(op.transcribe),
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
