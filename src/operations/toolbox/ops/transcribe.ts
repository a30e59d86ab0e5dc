import { notYetAvailable } from '../not-yet-available.js';
import type { ToolboxOperation } from '../operation.js';

/** Toolbox operation `transcribe` (reference §10.9). */
export const transcribeOperation: ToolboxOperation<unknown> = notYetAvailable('transcribe');
