import { notYetAvailable } from '../not-yet-available.js';
import type { ToolboxOperation } from '../operation.js';

/** Toolbox operation `outline` (reference §10.9). */
export const outlineOperation: ToolboxOperation<unknown> = notYetAvailable('outline');
