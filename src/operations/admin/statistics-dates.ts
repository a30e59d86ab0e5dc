import { QuireError } from '../../core/errors.js';

/**
 * The ISO-8601 date-times the clients send as `start`/`end` of a statistics query (reference §7):
 * the TS client `2022-01-20T12:30:00.000Z` (Date.toISOString), the Java client
 * `2022-01-20T12:30:00+01:00`, and the spec's example with a decimal comma `2022-01-20T12:30:00,000Z`.
 * An offset is required: a local time would mean whatever the server's zone is. A `+` that reached
 * us as a blank (the Java client does not percent-encode it in the query) is read as `+`.
 */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|[+\- ]\d{2}:?\d{2})$/i;

/** Epoch milliseconds of `value`; undefined for an empty value (no bound). Anything else throws -14. */
export function parseStatisticTime(value: string | undefined, name: string): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const match = DATE_TIME.exec(value.trim());
  if (!match) {
    throw new QuireError('PARAMETER', `Invalid parameter ${name}: "${value}" is not an ISO-8601 date-time with offset such as 2022-01-20T12:30:00.000Z or 2022-01-20T12:30:00+01:00.`);
  }
  const [, year, month, day, hour, minute, second = '0', fraction = '', zone = 'Z'] = match;
  const fields = [Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second)] as const;
  const local = Date.UTC(...fields, Number(fraction.padEnd(3, '0').slice(0, 3)));
  // Date.UTC rolls 2022-02-30 over into March: a date that does not survive the round trip is not one.
  const check = new Date(local);
  const roundTrip = [check.getUTCFullYear(), check.getUTCMonth(), check.getUTCDate(), check.getUTCHours(), check.getUTCMinutes(), check.getUTCSeconds()];
  if (roundTrip.some((field, i) => field !== fields[i])) {
    throw new QuireError('PARAMETER', `Invalid parameter ${name}: "${value}" is not a valid date-time.`);
  }
  return local - offsetMs(zone, name);
}

function offsetMs(zone: string, name: string): number {
  if (zone.toUpperCase() === 'Z') return 0;
  const sign = zone[0] === '-' ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2));
  if (hours > 23 || minutes > 59) throw new QuireError('PARAMETER', `Invalid parameter ${name}: the offset "${zone.trim()}" is not a time zone offset.`);
  return sign * (hours * 60 + minutes) * 60_000;
}
