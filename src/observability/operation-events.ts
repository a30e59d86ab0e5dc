/**
 * What happened in one web-service call, as the HTTP layer saw it when the response was sent. The
 * metrics and the admin statistics both listen to these events, so that neither the routes nor the
 * operations need to know about them.
 */
export interface OperationEvent {
  /** The web service: converter, toolbox, pdfa, signature, ocr, barcode, urlconverter, documents, ... */
  webservice: string;
  /** The route pattern, e.g. "/webPDF/rest/converter/:documentId". */
  route: string;
  method: string;
  statusCode: number;
  /** True for 1xx–3xx answers. */
  ok: boolean;
  /** The webPDF errorCode of a failed call, when it was one of ours. */
  errorCode?: number;
  /** Epoch milliseconds when the call arrived. */
  startedAt: number;
  durationMs: number;
  /** Request body bytes (Content-Length; 0 when unknown). */
  bytesIn: number;
  /** Response body bytes (Content-Length; 0 when streamed without one). */
  bytesOut: number;
  sessionId?: string;
  /**
   * A 202 that accepted the call as an asynchronous job: the work itself is observed when the job
   * replays the call, so operation counts skip this answer (HTTP request counts keep it).
   */
  accepted?: boolean;
}

export type OperationListener = (event: OperationEvent) => void;

/** A tiny synchronous event hub; a listener that throws never disturbs the call or the other listeners. */
export class OperationEvents {
  private readonly listeners = new Set<OperationListener>();

  /** Adds a listener; returns the function that removes it. */
  on(listener: OperationListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: OperationEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // Observers must not break calls; their own tests cover their failures.
      }
    }
  }
}
