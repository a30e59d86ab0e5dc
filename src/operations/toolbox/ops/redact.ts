import { notYetAvailable } from '../not-yet-available.js';
import type { ToolboxOperation } from '../operation.js';

/** Toolbox operation `redact` (reference §10.9). */
export const redactOperation: ToolboxOperation<unknown> = notYetAvailable('redact');
