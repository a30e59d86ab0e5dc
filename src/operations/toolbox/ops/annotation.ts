import { notYetAvailable } from '../not-yet-available.js';
import type { ToolboxOperation } from '../operation.js';

/** Toolbox operation `annotation` (reference §10.9). */
export const annotationOperation: ToolboxOperation<unknown> = notYetAvailable('annotation');
