import { notYetAvailable } from '../not-yet-available.js';
import type { ToolboxOperation } from '../operation.js';

/** Toolbox operation `description` (reference §10.9). */
export const descriptionOperation: ToolboxOperation<unknown> = notYetAvailable('description');
