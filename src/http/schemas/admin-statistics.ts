import Type, { type Static, type TSchema } from 'typebox';
import { WEBSERVICES, type WebserviceName } from '../../core/webservices.js';
import { AGGREGATIONS, type FrameTotals } from '../../operations/admin/statistics-frames.js';
import { DATA_SOURCES } from '../../operations/admin/statistics.js';
import { component, ref } from './shared.js';

/** A JSON object with free keys (OpenAPI 3.0 knows `additionalProperties`, not `patternProperties`). */
function mapOf<T extends TSchema>(value: T, description: string) {
  return Type.Unsafe<Record<string, Static<T>>>({ type: 'object', additionalProperties: value, description } as unknown as TSchema);
}

export const TimeEntryServerState = component(
  Type.Object(
    {
      executionTimeMs: Type.Integer({ format: 'int64' }),
      numberOfErrors: Type.Integer({ format: 'int64' }),
      numberOfJobs: Type.Integer({ format: 'int64' }),
    },
    { $id: 'Admin_TimeEntryServerState' },
  ),
);

export const PoolEntryServerState = component(
  Type.Object(
    {
      count: Type.Integer({ format: 'int32' }),
      poolSize: Type.Integer({ format: 'int32' }),
      queueSize: Type.Integer({ format: 'int32' }),
    },
    { $id: 'Admin_PoolEntryServerState' },
  ),
);

export const TimeFrameServerState = component(
  Type.Object(
    {
      executionTimeMs: Type.Integer({ format: 'int64', description: 'summed duration of the calls in milliseconds' }),
      formats: mapOf(ref(TimeEntryServerState), 'per input format; Quire keeps no per-format counts (always empty)'),
      instances: Type.Optional(ref(PoolEntryServerState)),
      numberOfErrors: Type.Integer({ format: 'int64', description: 'calls answered with an error (HTTP 400 and up)' }),
      numberOfJobs: Type.Integer({ format: 'int64', description: 'calls answered' }),
    },
    { $id: 'Admin_TimeFrameServerState' },
  ),
);

export const Statistic = component(
  Type.Object(
    {
      data: mapOf(
        mapOf(ref(TimeFrameServerState), 'time frame (its UTC start, ISO-8601) → totals; frames without calls are left out'),
        'web service → its time frames; every requested web service is present',
      ),
    },
    { $id: 'Admin_Statistic' },
  ),
);

export const StatisticParams = Type.Object({
  dataSource: Type.Enum(DATA_SOURCES, { description: 'Admin_DataSourceServerState: realtime (since the start) or persistent (kept in the data dir)' }),
  aggregation: Type.Enum(AGGREGATIONS, { description: 'Admin_AggregationServerState: length of one time frame (UTC)' }),
});

export const StatisticQuery = Type.Object({
  webservice: Type.Optional(Type.Array(Type.Enum(WEBSERVICES), { description: 'repeat per web service; none = all' })),
  start: Type.Optional(Type.String({ default: '', description: 'ISO-8601 with offset (2022-01-20T12:30:00.000Z or 2022-01-20T12:30:00+01:00); empty = no lower bound' })),
  end: Type.Optional(Type.String({ default: '', description: 'ISO-8601 with offset; empty = no upper bound' })),
});

/** Admin_Statistic of the frames the statistics returned. */
export function toStatistic(frames: Map<WebserviceName, Array<[number, FrameTotals]>>): Static<typeof Statistic> {
  const data: Record<string, Record<string, Static<typeof TimeFrameServerState>>> = {};
  for (const [webservice, rows] of frames) {
    const byFrame: Record<string, Static<typeof TimeFrameServerState>> = {};
    for (const [start, totals] of rows) {
      byFrame[new Date(start).toISOString()] = {
        executionTimeMs: Math.round(totals.durationMs),
        formats: {},
        numberOfErrors: totals.errors,
        numberOfJobs: totals.jobs,
      };
    }
    data[webservice] = byFrame;
  }
  return { data };
}
