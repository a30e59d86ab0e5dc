import type { Config } from '../../config/load.js';

/** The configuration in the reference's envelopes; validate and write. (Skeleton: a helper fills it in.) */
export interface ConfigurationDeps {
  config: Config;
}

export class ConfigurationService {
  constructor(readonly deps: ConfigurationDeps) {}
}
