import { notYetAvailable } from '../not-yet-available.js';
import type { ToolboxOperation } from '../operation.js';

/** Toolbox operation `watermark` (reference §10.9). */
export const watermarkOperation: ToolboxOperation<unknown> = notYetAvailable('watermark');
