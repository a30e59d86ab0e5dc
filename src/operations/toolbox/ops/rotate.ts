import { notYetAvailable } from '../not-yet-available.js';
import type { ToolboxOperation } from '../operation.js';

/** Toolbox operation `rotate` (reference §10.9). */
export const rotateOperation: ToolboxOperation<unknown> = notYetAvailable('rotate');
