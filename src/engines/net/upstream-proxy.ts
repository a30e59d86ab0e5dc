import http from 'node:http';
import net from 'node:net';

/**
 * A caller's HTTP proxy that the policy proxy forwards through (urlconverter `proxy`): CONNECT tunnels
 * for https and WebSockets, absolute-URI requests for plain http. The policy proxy still judges every
 * target and names the judged address to the upstream proxy, so the upstream proxy's own DNS cannot
 * steer a request to a host the policy did not allow.
 */
export interface UpstreamProxy {
  /** The proxy's address, already judged by the caller's address policy. */
  address: string;
  port: number;
  /** `Proxy-Authorization` value (e.g. "Basic …"), when the proxy needs credentials. */
  authorization?: string;
}

const CONNECT_TIMEOUT_MS = 30_000;

/** "1.2.3.4:443" or "[::1]:443". */
function authority(address: string, port: number): string {
  return `${net.isIPv6(address) ? `[${address}]` : address}:${port}`;
}

/** A tunnel to `address:port` through the upstream proxy; rejects unless the proxy answers 2xx. */
export function tunnelVia(upstream: UpstreamProxy, address: string, port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const request = http.request({
      host: upstream.address,
      port: upstream.port,
      method: 'CONNECT',
      path: authority(address, port),
      headers: { host: authority(address, port), ...(upstream.authorization ? { 'proxy-authorization': upstream.authorization } : {}) },
      timeout: CONNECT_TIMEOUT_MS,
    });
    request.once('connect', (response, socket, head) => {
      if ((response.statusCode ?? 0) < 200 || (response.statusCode ?? 0) > 299) {
        socket.destroy();
        reject(new Error(`the proxy answered ${response.statusCode} to CONNECT`));
        return;
      }
      if (head.length > 0) socket.unshift(head);
      resolve(socket);
    });
    request.once('timeout', () => request.destroy(new Error('the proxy did not answer in time')));
    request.once('error', reject);
    request.end();
  });
}

/** `http.request` options that send a plain http request for `address:port` through the upstream proxy. */
export function forwardVia(upstream: UpstreamProxy, address: string, port: number, pathAndQuery: string, headers: http.OutgoingHttpHeaders): http.RequestOptions {
  return {
    host: upstream.address,
    port: upstream.port,
    path: `http://${authority(address, port)}${pathAndQuery}`,
    headers: { ...headers, ...(upstream.authorization ? { 'proxy-authorization': upstream.authorization } : {}) },
  };
}
