import { notYetAvailable } from '../not-yet-available.js';
import type { ToolboxOperation } from '../operation.js';

/** Toolbox operation `xmp` (reference §10.9). */
export const xmpOperation: ToolboxOperation<unknown> = notYetAvailable('xmp');
