import { notYetAvailable } from '../not-yet-available.js';
import type { ToolboxOperation } from '../operation.js';

/** Toolbox operation `attachment` (reference §10.9). */
export const attachmentOperation: ToolboxOperation<unknown> = notYetAvailable('attachment');
