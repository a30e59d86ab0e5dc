import { notYetAvailable } from '../not-yet-available.js';
import type { ToolboxOperation } from '../operation.js';

/** Toolbox operation `security` (reference §10.9). */
export const securityOperation: ToolboxOperation<unknown> = notYetAvailable('security');
