import { Validator } from '@seriousme/openapi-schema-validator';
import YAML from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/fixture.js';

describe('OpenAPI document', () => {
  const { server } = useTestServer({ session: false });
  let document: Record<string, any>;
  beforeAll(async () => {
    const response = await fetch(`${server.rest}/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    document = (await response.json()) as Record<string, any>;
  });

  it('is a valid OpenAPI 3.0 document', async () => {
    expect(document.openapi).toBe('3.0.1');
    const result = await new Validator().validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('carries the product version and build timestamp', () => {
    expect(document.info.version).toMatch(/^Quire \d+\.\d+\.\d+ \(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)$/);
    expect(document.servers).toEqual([{ url: '/webPDF/rest' }]);
  });

  it('declares the tags and security schemes of the interface', () => {
    const tags = (document.tags as Array<{ name: string }>).map((t) => t.name);
    expect(tags).toEqual(['authentication', 'documents', 'administration', 'converter', 'pdfa', 'ocr', 'signature', 'toolbox', 'urlconverter', 'barcode', 'portal', 'experimental']);
    expect(document.components.securitySchemes.BasicAuth).toMatchObject({ type: 'http', scheme: 'basic' });
    expect(document.components.securitySchemes.BearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  // That it describes every served route (HEAD and the routes outside the REST base too): openapi-routes.test.ts.

  it('uses the webPDF component names and security per route', () => {
    expect(Object.keys(document.components.schemas)).toEqual(expect.arrayContaining(['Document_File', 'Webservice_Exception', 'Auth_SessionToken', 'Auth_UserCredentials', 'Session_Table']));
    const login = document.paths['/authentication/user/login'].post;
    expect(login.security).toEqual([{ BasicAuth: [] }, {}]);
    expect(login.tags).toEqual(['authentication']);
    expect(document.paths['/documents/{documentId}/info'].get.security).toEqual([{ BearerAuth: [] }]);
    const upload = document.paths['/documents'].post;
    expect(Object.keys(upload.requestBody.content)).toEqual(['multipart/form-data']);
    expect(upload.requestBody.content['multipart/form-data'].schema.properties.filedata).toMatchObject({ type: 'string', format: 'binary' });
    expect(document.paths['/admin/session/table'].get.tags).toEqual(['administration']);
  });

  it('is also served as YAML', async () => {
    const response = await fetch(`${server.rest}/openapi.yaml`);
    expect(response.status).toBe(200);
    expect(YAML.parse(await response.text())).toEqual(document);
  });
});
