/**
 * The PDF/A validator's document model: every object the profiles' rules apply to, with veraPDF's
 * types and property names. Parts: cos/ (raw syntax objects), xmp/ (the metadata) and pd/ (document,
 * pages, annotations, actions, output intents, content streams and what they use: graphics states,
 * XObjects, colour spaces, fonts, glyphs, signatures).
 *
 * Order matters for profile variables: an object whose type a variable is computed over must come
 * before the objects whose rules read the variable (profile/variables.ts). The only variable of the
 * PDF/A profiles, gOutputCS, is computed over ICCOutputProfile, which pd/ yields first.
 */
import type { CosDocument } from '../cos/index.js';
import type { ModelObject } from '../profile/model.js';
import { ContentCache } from './content-cache.js';
import { COS_TYPES, type CosWalkState, cosObjects } from './cos/index.js';
import { PD_TYPES, pdObjects } from './pd/index.js';
import { XMP_TYPES, xmpObjects } from './xmp/index.js';

/** The types every object of which modelObjects yields (ProfileTally's and ProfileVariables' implementsType). */
export const IMPLEMENTED_TYPES: ReadonlySet<string> = new Set([...COS_TYPES, ...XMP_TYPES, ...PD_TYPES]);

export interface ModelWalkOptions {
  /** COS model objects yielded at most (numbers in a content stream are objects each). */
  readonly maxObjects?: number;
  /**
   * The XMP Specification edition of the level being validated (2004 for PDF/A-1, 2005 for 2 and 3);
   * unset, the file's own pdfaid:part decides, which a file declaring the wrong part would get wrong.
   */
  readonly xmpEdition?: 2004 | 2005;
  /** The ISO 19005 part validated (which standard structure types there are: PDF 1.4's for part 1). Default 2. */
  readonly part?: 1 | 2 | 3;
}

/** 20M objects: far beyond real files (a 60 MB file with 100,000 objects yields ~2M), a bound on hostile ones. */
export const DEFAULT_MAX_MODEL_OBJECTS = 20_000_000;

export interface ModelWalk extends CosWalkState {
  /** Why parts of the document were not modelled (PD bounds, undecodable content): never compliant then. */
  incomplete?: string[];
}

/**
 * Every model object of the document, lazily (nothing is kept but the document's own caches). When
 * `walk.truncated` is true afterwards, the walk stopped at its bound and the document was not seen whole.
 */
export function* modelObjects(doc: CosDocument, walk: ModelWalk = { truncated: false, yielded: 0 }, options: ModelWalkOptions = {}): Generator<ModelObject> {
  yield* xmpObjects(doc, options.xmpEdition === undefined ? {} : { edition: options.xmpEdition });
  const max = options.maxObjects ?? DEFAULT_MAX_MODEL_OBJECTS;
  const pd = { incomplete: walk.incomplete ?? [] };
  walk.incomplete = pd.incomplete;
  const content = new ContentCache(doc);
  for (const object of pdObjects(doc, pd, options.part ?? 2, content)) {
    if (walk.yielded >= max) {
      walk.truncated = true;
      return;
    }
    walk.yielded++;
    yield object;
  }
  yield* cosObjects(doc, { maxObjects: options.maxObjects ?? DEFAULT_MAX_MODEL_OBJECTS, content }, walk);
}

export { objectPage, objectPath } from './cos/index.js';
