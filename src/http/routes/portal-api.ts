import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import Type from 'typebox';
import { QuireError } from '../../core/errors.js';
import type { PortalProviders } from '../../operations/portal/providers.js';
import type { PortalThemes, ThemeImage } from '../../operations/portal/theme.js';
import { PortalProvider, PortalTheme } from '../schemas/portal.js';

const tags = ['portal'];
const file = (summary: string, operationId: string, produces: string[]) => ({
  config: { auth: 'none' as const },
  schema: { tags, summary, operationId, produces, response: { 200: Type.String({ format: 'binary' }) } },
});

/**
 * What the portal's login page reads before anyone is logged in, so without authentication: the
 * OAuth 2.0/OIDC providers it offers, and the administration's logo, background and theme (the data
 * store). Nothing here is secret: the same a login page of any provider shows.
 */
export const portalApiRoutes: FastifyPluginAsyncTypebox<{ providers: PortalProviders; themes: PortalThemes; restBase: string }> = async (app, { providers, themes, restBase }) => {
  app.get(
    '/portal/providers',
    {
      config: { auth: 'none' },
      schema: {
        tags,
        operationId: 'getPortalProviders',
        summary: 'The OAuth 2.0/OIDC providers of the portal login (authorization code with PKCE); configured with a clientId',
        response: { 200: Type.Array(PortalProvider) },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'no-cache');
      return providers.list();
    },
  );

  app.get(
    '/portal/theme',
    {
      config: { auth: 'none' },
      schema: { tags, operationId: 'getPortalTheme', summary: "The portal's logo, background and theme from the administration's data store", response: { 200: PortalTheme } },
    },
    async (_request, reply) => {
      const theme = await themes.theme();
      reply.header('cache-control', 'no-cache');
      return {
        logo: { url: `${restBase}/portal/theme/logo`, contentType: theme.logo.contentType },
        background: theme.background ? { url: `${restBase}/portal/theme/background`, contentType: theme.background.contentType } : null,
        theme: theme.theme ?? null,
        stylesheet: theme.stylesheet ? `${restBase}/portal/theme/stylesheet` : null,
      };
    },
  );

  for (const which of ['logo', 'background'] as const satisfies readonly ThemeImage[]) {
    app.get(`/portal/theme/${which}`, file(`The portal's ${which} (image)`, `getPortalTheme${which === 'logo' ? 'Logo' : 'Background'}`, ['image/*']), async (_request, reply) => {
      const image = await themes.image(which);
      if (!image) throw new QuireError('DATASTORE_NOT_FOUND', `The data store has no ${which}.`);
      return (reply as FastifyReply).header('cache-control', 'no-cache').type(image.contentType).send(image.content);
    });
  }

  app.get('/portal/theme/stylesheet', file("The portal's theme when it is CSS", 'getPortalThemeStylesheet', ['text/css']), async (_request, reply) => {
    const css = await themes.stylesheet();
    if (css === undefined) throw new QuireError('DATASTORE_NOT_FOUND', 'The data store has no theme in CSS.');
    return (reply as FastifyReply).header('cache-control', 'no-cache').type('text/css; charset=utf-8').send(css);
  });
};
