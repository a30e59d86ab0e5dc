import { notYetAvailable } from '../not-yet-available.js';
import type { ToolboxOperation } from '../operation.js';

/** Toolbox operation `extraction` (reference §10.9). */
export const extractionOperation: ToolboxOperation<unknown> = notYetAvailable('extraction');
