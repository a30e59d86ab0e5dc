import { fromEngine } from '../engine-errors.js';

/**
 * Engine failures as the client sees them (the tables are in operations/engine-errors.ts); anything
 * unknown passes through (and becomes -1). `accessPassword`: whether the call sent one (the wording
 * of OFFICE_PASSWORD).
 */
export function fromConversionEngine(error: unknown, context: { accessPassword: boolean }): unknown {
  return fromEngine(error, context);
}
