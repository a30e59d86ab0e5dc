import Type from 'typebox';
import type { Pdfa } from '../converter/options.schema.js';
import type { Options } from '../option-schema.js';
import { operationEnvelope, type OperationRequest } from '../webservice.js';

/**
 * `Operation_PdfaOperation` (reference §10.2): `POST pdfa/{documentId}` with `{"pdfa":{"convert":…}}`
 * or `{"pdfa":{"analyze":…}}`. The `Operation_Pdfa` member is the one declaration the converter's
 * nested `pdfa` uses too (operations/converter/options.schema.ts); the password, billing and
 * settings components are the ones every web service shares.
 */

/** `Operation_Pdfa` as the service receives it: validated, defaults filled. */
export type PdfaOptions = Options<typeof Pdfa>;
export type PdfaConvertOptions = NonNullable<PdfaOptions['convert']>;
export type PdfaLevelName = NonNullable<PdfaConvertOptions['level']>;

export const PdfaOperation = operationEnvelope<PdfaOptions>('pdfa', 'Operation_Pdfa');

export type PdfaRequest = OperationRequest<'pdfa', PdfaOptions>;

/** The report's format (a Quire extension: the reference does not fix it). JSON by default. */
export const PdfaQuery = Type.Object({
  reportFormat: Type.Optional(Type.Enum(['json', 'xml'], { default: 'json', description: 'format of the validation report (analyze, errorReport file): json (default) or xml' })),
});

export type ReportFormat = 'json' | 'xml';
