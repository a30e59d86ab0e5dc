import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { QuireError } from '../../core/errors.js';
import { WEBSERVICES } from '../../core/webservices.js';
import { parseStatisticTime } from '../../operations/admin/statistics-dates.js';
import { Statistic, StatisticParams, StatisticQuery, toStatistic } from '../schemas/admin-statistics.js';
import { ref } from '../schemas/shared.js';
import type { AdminRouteOptions } from './admin-options.js';

/** admin/statistic/{dataSource}/{aggregation}: calls, failures and durations per web service and time frame. */
export const adminStatisticRoutes: FastifyPluginAsyncTypebox<AdminRouteOptions> = async (app, { admin }) => {
  app.get(
    '/admin/statistic/:dataSource/:aggregation',
    {
      config: { auth: 'admin' },
      schema: {
        tags: ['administration', 'experimental'],
        operationId: 'readServerStatistic',
        summary: 'Web-service calls, failures and execution time per UTC time frame',
        params: StatisticParams,
        querystring: StatisticQuery,
        response: { 200: ref(Statistic) },
      },
    },
    async (request) => {
      const { dataSource, aggregation } = request.params;
      const from = parseStatisticTime(request.query.start, 'start');
      const to = parseStatisticTime(request.query.end, 'end');
      if (from !== undefined && to !== undefined && from > to) {
        throw new QuireError('PARAMETER', `Invalid parameters start and end: start (${request.query.start}) lies after end (${request.query.end}).`);
      }
      const requested = request.query.webservice ?? [];
      const webservices = requested.length > 0 ? [...new Set(requested)] : WEBSERVICES;
      return toStatistic(await admin.statistics.read({ source: dataSource, aggregation, webservices, ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }) }));
    },
  );
};
