import { notYetAvailable } from '../not-yet-available.js';
import type { ToolboxOperation } from '../operation.js';

/** Toolbox operation `image` (reference §10.9). */
export const imageOperation: ToolboxOperation<unknown> = notYetAvailable('image');
