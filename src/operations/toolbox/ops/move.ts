import { notYetAvailable } from '../not-yet-available.js';
import type { ToolboxOperation } from '../operation.js';

/** Toolbox operation `move` (reference §10.9). */
export const moveOperation: ToolboxOperation<unknown> = notYetAvailable('move');
