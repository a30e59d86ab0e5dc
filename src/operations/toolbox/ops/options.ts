import { notYetAvailable } from '../not-yet-available.js';
import type { ToolboxOperation } from '../operation.js';

/** Toolbox operation `options` (reference §10.9). */
export const optionsOperation: ToolboxOperation<unknown> = notYetAvailable('options');
