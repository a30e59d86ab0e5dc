import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { DataStoreGroupParams, DataStoreNameQuery, FileDataStore, FileDataStoreBody, toFileDataStore } from '../schemas/admin-datastore.js';
import { ref } from '../schemas/shared.js';
import type { AdminRouteOptions } from './admin-options.js';

const tags = ['administration'];
/** Room for the JSON around the Base64 content of a POST. */
const ENVELOPE_BYTES = 64 * 1024;

/** admin/datastore: read, store and delete the theme, logo, background and generic files. */
export const adminDatastoreRoutes: FastifyPluginAsyncTypebox<AdminRouteOptions> = async (app, { admin }) => {
  const { datastore, config } = admin;
  // A file of maxFileSize bytes is a third larger in Base64: let that through, so that what is too
  // large gets the data store's own error (-126) rather than the generic body limit.
  const bodyLimit = Math.max(config.server.jsonBodyLimit, Math.ceil(config.datastore.maxFileSize / 3) * 4 + ENVELOPE_BYTES);

  app.get(
    '/admin/datastore/:group',
    {
      config: { auth: 'admin' },
      schema: {
        tags,
        operationId: 'readDataStoreFile',
        summary: 'A file of the data store (the built-in logo when none is stored)',
        params: DataStoreGroupParams,
        querystring: DataStoreNameQuery,
        response: { 200: ref(FileDataStore) },
      },
    },
    async (request) => toFileDataStore(await datastore.read(request.params.group, request.query.name)),
  );

  app.post(
    '/admin/datastore',
    {
      bodyLimit,
      config: { auth: 'admin' },
      schema: {
        tags,
        operationId: 'updateDataStoreFile',
        summary: "Store a file in the data store, replacing the group's (or the named generic) file",
        body: FileDataStoreBody,
        response: { 200: ref(FileDataStore) },
      },
    },
    async (request) => {
      const { fileGroup, fileContent, fileName } = request.body;
      return toFileDataStore(await datastore.write(fileGroup, fileContent ?? '', fileName));
    },
  );

  app.delete(
    '/admin/datastore/:group',
    {
      config: { auth: 'admin' },
      schema: {
        tags,
        operationId: 'deleteDataStoreFile',
        summary: 'Delete a file of the data store; the logo falls back to the built-in one',
        params: DataStoreGroupParams,
        querystring: DataStoreNameQuery,
      },
    },
    async (request, reply) => {
      await datastore.delete(request.params.group, request.query.name);
      return reply.code(200).send();
    },
  );
};
