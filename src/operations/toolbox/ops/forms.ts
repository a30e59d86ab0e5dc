import { notYetAvailable } from '../not-yet-available.js';
import type { ToolboxOperation } from '../operation.js';

/** Toolbox operation `forms` (reference §10.9). */
export const formsOperation: ToolboxOperation<unknown> = notYetAvailable('forms');
