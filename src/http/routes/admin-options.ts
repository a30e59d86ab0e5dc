import type { AdminServices } from '../../operations/admin/services.js';
import type { BuildInfo } from '../../version.js';

/** The options every administration route group gets (one shape, so that wiring never changes per group). */
export interface AdminRouteOptions {
  admin: AdminServices;
  /** e.g. /webPDF/rest */
  restBase: string;
  /** e.g. /webPDF */
  contextPath: string;
  build: BuildInfo;
}
