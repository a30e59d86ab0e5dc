import type { DocumentStep, NestedSteps } from '../transaction/document-transaction.js';

/**
 * Steps that run on the converter's PDF before it is stored: the converter's nested `pdfa` and
 * `signature` members. They are the PDF/A and signature web services' own steps of the document
 * transaction (`DocumentStep`), offered by their modules (`WebServiceModule.nestedStep`) and handed
 * over by the registry (operations/webservices.ts); until those services exist, a request that needs
 * a missing step is refused with a clear error (and LibreOffice's own PDF/A export covers Office
 * input at levels 1b, 2b and 3b).
 */
export type ConversionStep = DocumentStep;

export type ConversionSteps = Pick<NestedSteps, 'pdfa' | 'signature'>;
