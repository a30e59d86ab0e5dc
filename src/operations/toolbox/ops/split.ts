import { notYetAvailable } from '../not-yet-available.js';
import type { ToolboxOperation } from '../operation.js';

/** Toolbox operation `split` (reference §10.9). */
export const splitOperation: ToolboxOperation<unknown> = notYetAvailable('split');
