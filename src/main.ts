import closeWithGrace from 'close-with-grace';
import { ConfigError, loadConfig, type Config } from './config/load.js';
import { startServer } from './server.js';

/** Entry point: load the configuration, start the server, shut down gracefully on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  // The generated admin password goes to the console once, never into the log.
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer(config, { announce: (message) => process.stdout.write(`\n*** ${message}\n\n`), compactHeapWhenIdle: true });
  } catch (error) {
    // A tool the configuration names that is not there (engines-wiring.ts probeTools): the setting to fix, no stack.
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const logger = server.app.log;
  logger.info(
    { url: `${server.url}${config.server.restBase}`, ...(server.httpsUrl ? { httpsUrl: `${server.httpsUrl}${config.server.restBase}` } : {}), dataDir: config.dataDir },
    'Quire is listening',
  );
  // Once, at start (a restart reads the same environment): QUIRE_ variables that set nothing.
  if (config.ignoredEnvironment.length > 0) {
    logger.warn({ variables: config.ignoredEnvironment }, `environment variables ignored, they name no configuration key: ${config.ignoredEnvironment.join(', ')}`);
  }

  closeWithGrace({ delay: config.server.shutdownTimeoutMs, logger }, async ({ signal, err }) => {
    if (err) logger.error({ err }, 'shutting down after an unexpected error');
    else logger.info({ signal }, 'shutting down');
    await server.close();
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`Quire failed to start: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
