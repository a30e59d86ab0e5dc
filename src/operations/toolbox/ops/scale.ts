import { notYetAvailable } from '../not-yet-available.js';
import type { ToolboxOperation } from '../operation.js';

/** Toolbox operation `scale` (reference §10.9). */
export const scaleOperation: ToolboxOperation<unknown> = notYetAvailable('scale');
