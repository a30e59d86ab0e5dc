import type { WebserviceName } from '../core/webservices.js';
import { barcodeModule } from './barcode/module.js';
import { converterModule } from './converter/module.js';
import { ocrModule } from './ocr/module.js';
import { pdfaModule } from './pdfa/module.js';
import { signatureModule } from './signature/module.js';
import { toolboxModule } from './toolbox/module.js';
import { urlconverterModule } from './urlconverter/module.js';
import type { NestedSteps } from './transaction/document-transaction.js';
import type { WebServiceDeps, WebServiceModule } from './webservice.js';

/**
 * THE registry: the web-service groups this server offers, one line each. Everything else about a
 * group — its routes, OpenAPI tag, status, statistics, configuration, nested steps — comes from its
 * module (see webservice.ts). A group of the reference that is not listed here does not exist on this
 * server (shown disabled, refused when switched on).
 */
export const WEBSERVICE_MODULES = [converterModule, pdfaModule, toolboxModule, urlconverterModule, signatureModule, barcodeModule, ocrModule] as const;

export type RegisteredModule = (typeof WEBSERVICE_MODULES)[number];
export type RegisteredName = RegisteredModule['name'];

/** The registered modules, for code that treats them alike (their services' types differ). */
export const REGISTERED: readonly WebServiceModule<unknown>[] = WEBSERVICE_MODULES as unknown as readonly WebServiceModule<unknown>[];

/** The registered module of a web service, if this server offers it. */
export function webServiceModule(name: WebserviceName): WebServiceModule<unknown> | undefined {
  return REGISTERED.find((module) => module.name === name);
}

/** The built service of every registered module, by name. */
export type WebServices = { [M in RegisteredModule as M['name']]: M extends WebServiceModule<infer S> ? S : never };

/**
 * Builds every registered service, then hands the steps they offer to the services that nest them:
 * every service gets the same `steps` object at creation and reads it only when a call runs (the
 * converter's `pdfa`), so the order of the registry does not matter.
 */
export function createWebServices(deps: Omit<WebServiceDeps, 'steps'>): WebServices {
  const steps: NestedSteps = {};
  const withSteps: WebServiceDeps = { ...deps, steps };
  const built = REGISTERED.map((module) => ({ module, service: module.create(withSteps) }));
  for (const { module, service } of built) {
    if (module.nestedStep) steps[module.name] = module.nestedStep(service);
  }
  return Object.fromEntries(built.map(({ module, service }) => [module.name, service])) as WebServices;
}
