import { notYetAvailable } from '../not-yet-available.js';
import type { ToolboxOperation } from '../operation.js';

/** Toolbox operation `portfolio` (reference §10.9). */
export const portfolioOperation: ToolboxOperation<unknown> = notYetAvailable('portfolio');
