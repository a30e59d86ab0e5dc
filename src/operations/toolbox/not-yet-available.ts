import { QuireError } from '../../core/errors.js';
import type { ToolboxOperation, ToolboxOperationName } from './operation.js';

/** An operation this server version does not offer yet: refused with a clear error (-104), never a silent no-op. */
export function notYetAvailable(name: ToolboxOperationName): ToolboxOperation<unknown> {
  return {
    name,
    needsPdf: true,
    run: async (_input, _options, _context, field) => {
      throw new QuireError('OPTION_UNSUPPORTED', `${field} is not available on this server yet.`);
    },
  };
}
