import type { LoginSecurity } from '../../src/config/load.js';

/** Small login-throttle settings for the throttle's tests (embedded and Redis): 3 failures lock an address, 5 a name. */
export const LOGIN_SETTINGS: LoginSecurity = {
  maxFailures: 3,
  windowMs: 60_000,
  lockoutMs: 10_000,
  maxLockoutMs: 40_000,
  userMaxFailures: 5,
  userMaxLockoutMs: 20_000,
  maxConcurrentHashes: 1,
  maxWaitingHashes: 1,
};
