/** The COS part of the validator's document model: veraPDF's Cos* objects of a document (walk.ts). */
export { type CosWalkOptions, type CosWalkState, cosObjects } from './walk.js';
export { type LocatedObject, modelObject, objectPage, objectPath } from './object.js';
export { COS_TYPES } from './types.js';
