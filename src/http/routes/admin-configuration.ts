import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type, { type TSchema } from 'typebox';
import { CONFIGURATION_TYPES, type ConfigurationEnvelope, type ConfigurationType } from '../../operations/admin/configuration-wire.js';
import { AdminConfiguration, ConfigurationRequest, ConfigurationResult, ConfigurationTypeSchema, ENVELOPES } from '../schemas/admin-configuration.js';
import { ref } from '../schemas/shared.js';
import type { AdminRouteOptions } from './admin-options.js';

const tags = ['administration'];

/** One reference object per envelope, so Fastify compiles each validator once and reuses it. */
const ENVELOPE_REFS = new Map<ConfigurationType, TSchema>(CONFIGURATION_TYPES.map((type) => [type, ref(ENVELOPES[type])]));

/**
 * admin/configuration: our configuration in the reference's envelopes (GET per type) and the
 * validate/write call (POST; the clients send `admin/configuration/`, which the router accepts).
 */
export const adminConfigurationRoutes: FastifyPluginAsyncTypebox<AdminRouteOptions> = async (app, { admin }) => {
  app.get(
    '/admin/configuration/:type',
    {
      config: { auth: 'admin' },
      schema: {
        tags,
        operationId: 'readConfiguration',
        summary: 'The configuration of one area in the envelope of its type; passwords read as ""',
        params: Type.Object({ type: ConfigurationTypeSchema }),
        response: { 200: ref(AdminConfiguration) },
      },
    },
    async (request) => admin.configuration.read(request.params.type),
  );

  app.post(
    '/admin/configuration',
    {
      config: { auth: 'admin' },
      schema: {
        tags,
        operationId: 'updateConfiguration',
        summary:
          'Validate (configurationMode validate: nothing is saved) or write (write: validated, saved to the YAML file with a backup, applied live where possible) one envelope; problems come back in the result',
        body: ConfigurationRequest,
        response: { 200: ref(ConfigurationResult) },
      },
    },
    async (request) => {
      // The envelope of the named type is checked here rather than as a union, so a wrong member is
      // reported by its own path instead of once per envelope type.
      const validate = request.compileValidationSchema(ENVELOPE_REFS.get(request.body.configurationType)!, 'body');
      if (!validate(request.body)) {
        throw Object.assign(new Error('The configuration envelope is not valid.'), { validation: validate.errors ?? [], validationContext: 'body', statusCode: 400 });
      }
      return admin.configuration.submit(request.body as ConfigurationEnvelope, request.session!.id);
    },
  );
};
