/**
 * Steps that run on the converter's PDF before it is stored: the converter's nested `pdfa` and
 * `signature` members. The PDF/A and signature web services register theirs when they exist; until
 * then a request that needs a missing step is refused with a clear error (and LibreOffice's own
 * PDF/A export covers Office input at levels 1b, 2b and 3b).
 */
export interface ConversionStep {
  /** Reads `input`, writes `output`; `options` is the member as the client sent it. */
  run(input: string, output: string, options: unknown): Promise<void>;
}

export interface ConversionSteps {
  pdfa?: ConversionStep;
  signature?: ConversionStep;
}
