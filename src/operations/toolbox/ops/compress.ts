import { notYetAvailable } from '../not-yet-available.js';
import type { ToolboxOperation } from '../operation.js';

/** Toolbox operation `compress` (reference §10.9). */
export const compressOperation: ToolboxOperation<unknown> = notYetAvailable('compress');
