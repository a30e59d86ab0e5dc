/**
 * The veraPDF Cos* types this folder builds, split by how completely the walk enumerates them.
 *
 * COS_TYPES are claimed as implemented (`implementsType`): every object of the type is yielded, so a
 * rule on it that no object failed has passed. COS_PARTIAL_TYPES are yielded where the walk recognises
 * them but not claimed: which dictionaries are file specifications, which names are "text" names
 * (CosUnicodeName), which arrays are page boxes, which names rendering intents or blend modes, depends
 * on the PD layer's context (resources, inheritance, an ExtGState without /Type), so a failure found there counts while the absence
 * of failures proves nothing (ProfileTally keeps their rules not-checked).
 */
export const COS_TYPES: readonly string[] = ['CosDocument', 'CosTrailer', 'CosXRef', 'CosIndirect', 'CosStream', 'CosDict', 'CosArray', 'CosString', 'CosName', 'CosInteger', 'CosReal', 'CosFilter'];

export const COS_PARTIAL_TYPES: readonly string[] = ['CosFileSpecification', 'CosUnicodeName', 'CosBBox', 'CosBM', 'CosRenderingIntent', 'CosLang', 'CosIIFilter'];
