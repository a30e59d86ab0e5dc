import { notYetAvailable } from '../not-yet-available.js';
import type { ToolboxOperation } from '../operation.js';

/** Toolbox operation `print` (reference §10.9). */
export const printOperation: ToolboxOperation<unknown> = notYetAvailable('print');
