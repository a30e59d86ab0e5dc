import { ambientCancellation } from '../../core/cancellation.js';
import { QuireError } from '../../core/errors.js';
import { UrlLoadError, type UrlRenderer } from '../../engines/chromium/url-job.js';
import { AddressPolicy, type AddressPolicyOptions } from '../../engines/net/address-policy.js';
import { FetchError, fetchSmall } from '../../engines/net/fetch-small.js';
import type { Session } from '../../sessions/session.js';
import type { DocumentRecord } from '../../storage/document-store.js';
import { fromEngine } from '../engine-errors.js';
import { runAsNew, type TransactionDeps } from '../transaction/document-transaction.js';
import { httpSettings } from './http-settings.js';
import { headerFooterTemplate, pageSetup } from './page-layout.js';
import type { UrlConverterRequest } from './urlconverter.schema.js';

/** How the service reaches the browsers: the Chromium engine once it has started (engines-wiring's BackgroundStart). */
export interface UrlEngine {
  ready(signal?: AbortSignal): Promise<UrlRenderer>;
}

export interface UrlConverterLimits {
  /** One call, every step together (urlconverter.timeout). */
  timeoutMs: number;
  networkIdleTimeoutMs: number;
  maxBytes: number;
  maxRequests: number;
  maxPages: number;
}

/** A header or footer fetched from a `uri` may be this large. */
const MAX_TEMPLATE_BYTES = 1024 * 1024;
const TEMPLATE_TIMEOUT_MS = 10_000;

/** Longest document name taken from a page title. */
const MAX_NAME_CHARS = 200;

/**
 * `POST urlconverter`: a web page becomes a new PDF document of the session. The URL is judged by the
 * address policy before any browser work (a refused URL costs nothing and reaches nobody); the page
 * then loads in the warm Chromium pool under the same policy for every request it makes
 * (engines/chromium/render-url.ts), and the PDF is stored by the document transaction (`runAsNew`):
 * nothing is stored unless the whole call succeeds.
 */
export class UrlConverterService {
  private readonly policy: AddressPolicy;

  constructor(
    private readonly deps: Pick<TransactionDeps, 'documents' | 'credentials'>,
    private readonly engine: UrlEngine | undefined,
    private readonly network: AddressPolicyOptions,
    private readonly limits: UrlConverterLimits,
  ) {
    this.policy = new AddressPolicy(network);
  }

  async convert(session: Session, request: UrlConverterRequest, options: { history: boolean }): Promise<DocumentRecord> {
    const options_ = request.urlconverter;
    const raw = options_.url.trim();
    if (raw === '') throw new QuireError('URL_MISSING', 'urlconverter.url is empty: give the http(s) URL of the page to convert.');
    const url = parseUrl(raw);
    const http = httpSettings(request.settings);
    const page = pageSetup(options_.page);
    const headerHtml = await headerFooterTemplate(options_.page?.header, 'page.header', (uri) => this.fetchTemplate(uri, 'page.header'));
    const footerHtml = await headerFooterTemplate(options_.page?.footer, 'page.footer', (uri) => this.fetchTemplate(uri, 'page.footer'));
    const auth = options_.basicAuth;
    const basicAuth = auth && (auth.userName !== '' || auth.password !== '') ? { userName: auth.userName, password: auth.password } : undefined;
    if (basicAuth?.userName.includes(':')) throw new QuireError('PARAMETER', 'Invalid parameter urlconverter.basicAuth.userName: must not contain ":".');

    // Refused before anything is fetched: the browser's guard would refuse it too, but only after a browser was taken.
    const decision = await this.policy.checkUrl(url);
    if (!decision.allowed) {
      if (decision.refusal === 'unresolved') throw new QuireError('URL_UNREACHABLE', `${url.href} cannot be loaded: ${decision.reason}.`);
      throw new QuireError('URL_REFUSED', `${url.href} is refused: ${decision.reason} (network.allowInternal / network.allowHosts).`);
    }
    const proxy = await this.proxyOf(options_.proxy);
    const engine = this.engine;
    if (!engine) throw new QuireError('ENGINE_UNAVAILABLE', 'Converting web pages needs the Chromium engine, which is disabled on this server.');

    const timeoutMs = Math.min(this.limits.timeoutMs, http.responseTimeoutMs ?? Number.POSITIVE_INFINITY);
    const deadline = { timeoutMs, abortWith: (ms: number) => timedOut(url.href, ms) };
    let title = '';
    const { record } = await runAsNew(this.deps, session, { operation: 'urlconverter', name: `${url.hostname}.pdf`, history: options.history, deadline }, async (tx) => {
      const output = tx.scratch.file('pdf');
      try {
        const renderer = await engine.ready(ambientCancellation());
        const result = await renderer.convertUrl(
          {
            url: url.href,
            outputPath: output,
            page,
            ...(headerHtml === undefined ? {} : { headerHtml }),
            ...(footerHtml === undefined ? {} : { footerHtml }),
            policy: this.network,
            ...(basicAuth ? { basicAuth } : {}),
            ...(proxy ? { proxy } : {}),
            headers: http.headers,
            ...(http.userAgent ? { userAgent: http.userAgent } : {}),
            followRedirects: http.followRedirects,
            maxBytes: this.limits.maxBytes,
            maxRequests: this.limits.maxRequests,
            maxPages: this.limits.maxPages,
            networkIdleTimeoutMs: Math.min(this.limits.networkIdleTimeoutMs, Math.floor(tx.deadline.remainingMs() / 2)),
          },
          { timeoutMs: Math.max(1, tx.deadline.remainingMs()) },
        );
        title = result.title;
      } catch (error) {
        throw fromUrlEngine(error);
      }
      return { file: { path: output, pdf: true } };
    });
    const name = documentName(title);
    if (name === undefined) return record;
    return this.deps.documents.rename(session, record.id, `${name}.pdf`, { hasExtension: true });
  }

  /** A header/footer `uri`: fetched under the address policy (no redirects, at most MAX_TEMPLATE_BYTES, 10 s). */
  private async fetchTemplate(uri: string, field: string): Promise<string> {
    try {
      const body = await fetchSmall({ url: uri, policy: this.policy, maxBytes: MAX_TEMPLATE_BYTES, timeoutMs: TEMPLATE_TIMEOUT_MS });
      return body.toString('utf8');
    } catch (error) {
      if (!(error instanceof FetchError)) throw error;
      if (error.kind === 'refused') throw new QuireError('URL_REFUSED', `urlconverter.${field}.uri is refused: ${error.message} (network.allowInternal / network.allowHosts).`, { cause: error });
      throw new QuireError('URL_UNREACHABLE', `urlconverter.${field}.uri cannot be loaded: ${error.message}.`, { cause: error });
    }
  }

  /**
   * `proxy`: the proxy is itself a target the server connects to, so its address passes the same
   * policy (a proxy on an internal address would reach what the policy protects); the judged address
   * is what the browser's traffic goes to.
   */
  private async proxyOf(proxy: UrlConverterRequest['urlconverter']['proxy']): Promise<{ address: string; port: number; userName: string; password: string } | undefined> {
    const host = proxy?.address.trim() ?? '';
    if (!proxy || host === '') return undefined;
    if (proxy.port < 1 || proxy.port > 65535) throw new QuireError('PARAMETER', 'Invalid parameter urlconverter.proxy.port: must be 1 to 65535 when an address is given.');
    if (/[/@\s]/.test(host)) throw new QuireError('PARAMETER', 'Invalid parameter urlconverter.proxy.address: a host name or IP address, without scheme or port.');
    const decision = await this.policy.checkHost(host);
    if (!decision.allowed) {
      if (decision.refusal === 'unresolved') throw new QuireError('URL_UNREACHABLE', `The proxy ${host} cannot be used: ${decision.reason}.`);
      throw new QuireError('URL_REFUSED', `The proxy ${host} is refused: ${decision.reason} (network.allowInternal / network.allowHosts).`);
    }
    return { address: decision.addresses[0]!, port: proxy.port, userName: proxy.userName, password: proxy.password };
  }
}

/** An absolute http(s) URL, or URL_REFUSED saying what is wrong with it. */
function parseUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new QuireError('URL_REFUSED', `urlconverter.url "${clip(raw)}" is not an absolute URL: give one such as https://example.com/.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new QuireError('URL_REFUSED', `urlconverter.url uses the ${url.protocol} scheme: only http: and https: pages can be converted.`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new QuireError('URL_REFUSED', 'urlconverter.url carries credentials: give them in urlconverter.basicAuth, which is sent to the page’s origin only.');
  }
  return url;
}

function fromUrlEngine(error: unknown): unknown {
  if (error instanceof UrlLoadError) {
    const name = error.reason === 'refused' ? 'URL_REFUSED' : error.reason === 'limit' ? 'URL_LIMIT' : 'URL_UNREACHABLE';
    return new QuireError(name, error.message, { cause: error });
  }
  return fromEngine(error);
}

function timedOut(url: string, timeoutMs: number): QuireError {
  const seconds = Math.round(timeoutMs / 100) / 10;
  return new QuireError(
    'PROCESSING_TIMEOUT',
    `${url} did not finish loading and printing within ${seconds} s (urlconverter.timeout, settings.http.timeout.response): the browser was stopped and nothing was stored.`,
  );
}

/** The page title as a document name: one line, without characters file names cannot hold; undefined when empty. */
function documentName(title: string): string | undefined {
  const name = title
    .replace(/[\u0000-\u001f\u007f/\\:*?"<>|]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, MAX_NAME_CHARS)
    .trim();
  return name === '' ? undefined : name;
}

function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
