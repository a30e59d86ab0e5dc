/**
 * The version of a stored document that its info, download and history show. http/ reaches it here:
 * the import rule (docs/ARCHITECTURE.md) lets http import storage types only, and this module stays
 * light (no engines), so the schemas that use it load nothing more.
 */
export { activeVersion } from '../../storage/document-store.js';
