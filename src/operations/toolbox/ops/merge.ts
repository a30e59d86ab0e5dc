import { notYetAvailable } from '../not-yet-available.js';
import type { ToolboxOperation } from '../operation.js';

/** Toolbox operation `merge` (reference §10.9). */
export const mergeOperation: ToolboxOperation<unknown> = notYetAvailable('merge');
