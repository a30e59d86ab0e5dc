import Type, { type TSchema } from 'typebox';
import * as options from '../../operations/converter/options.schema.js';
import { PdfPassword } from './document-operations.js';
import { component, ref } from './shared.js';

/**
 * `Operation_ConverterOperation` (reference §10.4): the converter's option schemas live next to the
 * converter (operations/converter/options.schema.ts); here they become OpenAPI components, registered
 * in this order, with the members of the call around them.
 */

const opt = <T extends TSchema>(schema: T) => Type.Optional(schema);

export const ConverterHeader = component(options.ConverterHeader);
export const ConverterFooter = component(options.ConverterFooter);
export const TemplateData = component(options.TemplateData);
export const ConverterPage = component(options.ConverterPage);
export const ConverterHtml = component(options.ConverterHtml);
export const ConverterMail = component(options.ConverterMail);
export const ConverterImage = component(options.ConverterImage);
export const ConverterOffice = component(options.ConverterOffice);
export const ConverterText = component(options.ConverterText);
export const ConverterReport = component(options.ConverterReport);
export const Pdfa = component(options.Pdfa);
export const Converter = component(options.Converter);

export const Billing = component(
  Type.Object(
    {
      applicationName: opt(Type.String({ default: 'external' })),
      customerCode: opt(Type.String({ default: '' })),
      userName: opt(Type.String({ default: '' })),
    },
    { $id: 'Operation_Billing' },
  ),
);

export const Settings = component(Type.Object({}, { $id: 'Operation_Settings', description: 'Compression, HTTP, PDF/A and signature profiles (see the reference)' }));

export const ConverterOperation = component(
  Type.Object(
    {
      converter: ref(Converter),
      password: opt(ref(PdfPassword)),
      billing: opt(ref(Billing)),
      settings: opt(ref(Settings)),
    },
    { $id: 'Operation_ConverterOperation' },
  ),
);
