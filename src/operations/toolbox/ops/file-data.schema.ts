import Type, { type TSchema } from 'typebox';
import { defaulted } from '../../option-schema.js';

/**
 * An `Operation_*FileData` member: the content goes as Base64 in `value`. `source` "uri" (fetch it
 * from a URL) is refused with -104; `uri` is there because the wire shape has it.
 */
export function base64FileData<V extends TSchema>(description: string, value: V) {
  return Type.Object(
    {
      source: defaulted(Type.Enum(['value', 'uri'], { default: 'value', description: 'Operation_FileDataSource: only value (Base64) is accepted; uri is refused (-104)' })),
      uri: defaulted(Type.String({ default: '' })),
      value,
    },
    { description },
  );
}
