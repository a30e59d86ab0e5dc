import type { HTTPRequest, Page } from 'puppeteer-core';
import { AddressPolicy, type PolicyDecision } from '../net/address-policy.js';
import type { ProxyVerdict } from '../net/policy-proxy.js';
import { HtmlEngineError } from './errors.js';
import type { HtmlNetwork, HtmlResult } from './types.js';

/**
 * The network rules of one job's page, applied by request interception, and what came of them.
 *
 * - `data:`, `blob:` and `about:` stay inside the browser and always load.
 * - `http:`/`https:` load only when the job allows remote resources and the address policy allows
 *   the host; one decision per host per job.
 * - Everything else (`file:` above all, `ftp:`, `chrome:`, …) is refused.
 *
 * The same per-host decisions serve the job's policy proxy (`checkHost`), which enforces them for
 * what interception does not see (WebSockets) and pins connections to the judged addresses.
 */

const IN_BROWSER_SCHEMES = new Set(['data:', 'blob:', 'about:']);
const REMOTE_SCHEMES = new Set(['http:', 'https:']);
/** A page can issue any number of requests; the report keeps this many of each kind. */
const MAX_LISTED = 100;
/** Long data or query URLs are cut in the report. */
const MAX_URL_CHARS = 2048;
const REMOTE_DISABLED: ProxyVerdict = { allowed: false, reason: 'remote resources are disabled for this document' };

/** Per-request additions of a caller; both only see requests the policy allows. */
export interface GuardHooks {
  /** True: abort the request as blocked. */
  refuse?(request: HTTPRequest): boolean;
  /** Headers added to the request. */
  headers?(request: HTTPRequest): Record<string, string> | undefined;
}

export class RequestGuard {
  private readonly policy: AddressPolicy | undefined;
  private readonly decisions = new Map<string, Promise<PolicyDecision>>();
  private readonly blocked = new Set<string>();
  private readonly failed = new Set<string>();
  private readonly pending = new Set<HTTPRequest>();
  /** Requests this guard aborted: their failure is already reported. */
  private readonly aborted = new WeakSet<HTTPRequest>();

  /**
   * Throws `invalidOption` for a malformed `allowHosts` entry. `hooks` (the URL converter's): refuse a
   * request the policy would allow (a redirect, past a request limit), or add headers to one.
   */
  constructor(
    network: HtmlNetwork,
    private readonly hooks: GuardHooks = {},
  ) {
    try {
      this.policy = network.allowRemote ? new AddressPolicy(network.policy) : undefined;
    } catch (error) {
      throw new HtmlEngineError('invalidOption', (error as Error).message, { cause: error });
    }
  }

  async attach(page: Page): Promise<void> {
    await page.setRequestInterception(true);
    page.on('request', (request) => {
      this.pending.add(request);
      void this.decide(request);
    });
    page.on('requestfinished', (request) => {
      this.pending.delete(request);
      const status = request.response()?.status() ?? 0;
      if (status >= 400) add(this.failed, request.url());
    });
    page.on('requestfailed', (request) => {
      this.pending.delete(request);
      if (!this.aborted.has(request)) add(this.failed, request.url());
    });
  }

  /** The job's decision for a host, for the policy proxy. */
  readonly checkHost = (host: string): Promise<ProxyVerdict> => (this.policy ? this.decision(host) : Promise.resolve(REMOTE_DISABLED));

  /** The proxy refused a connection that interception had not (a WebSocket, or a host whose DNS answer changed). */
  readonly recordRefused = (target: string): void => add(this.blocked, target);

  /** Requests still loading when the wait for the page ended count as failed. */
  markUnfinished(): void {
    for (const request of this.pending) add(this.failed, request.url());
    this.pending.clear();
  }

  result(): HtmlResult {
    return { blocked: [...this.blocked], failed: [...this.failed] };
  }

  private async decide(request: HTTPRequest): Promise<void> {
    const url = request.url();
    const scheme = url.slice(0, url.indexOf(':') + 1).toLowerCase();
    try {
      if (IN_BROWSER_SCHEMES.has(scheme)) {
        await request.continue();
        return;
      }
      if (this.policy && REMOTE_SCHEMES.has(scheme)) {
        const decision = await this.decision(new URL(url).hostname);
        if (decision.allowed && this.hooks.refuse?.(request)) {
          await this.abort(request, this.blocked, 'blockedbyclient');
        } else if (decision.allowed) {
          const headers = this.hooks.headers?.(request);
          await request.continue(headers ? { headers: { ...request.headers(), ...headers } } : undefined);
        } else if (decision.refusal === 'unresolved') {
          await this.abort(request, this.failed, 'namenotresolved');
        } else {
          await this.abort(request, this.blocked, 'blockedbyclient');
        }
        return;
      }
      await this.abort(request, this.blocked, 'blockedbyclient');
    } catch {
      // The page or its context closed before the request was answered: nothing left to decide.
    }
  }

  private async abort(request: HTTPRequest, list: Set<string>, code: 'namenotresolved' | 'blockedbyclient'): Promise<void> {
    add(list, request.url());
    this.aborted.add(request);
    await request.abort(code);
  }

  private decision(host: string): Promise<PolicyDecision> {
    let decision = this.decisions.get(host);
    if (!decision) {
      decision = this.policy!.checkHost(host);
      this.decisions.set(host, decision);
    }
    return decision;
  }
}

function add(list: Set<string>, url: string): void {
  if (list.size < MAX_LISTED) list.add(clip(url));
}

function clip(url: string): string {
  return url.length > MAX_URL_CHARS ? `${url.slice(0, MAX_URL_CHARS)}…` : url;
}
