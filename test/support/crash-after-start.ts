/**
 * A connector process that, once started and listening for signals as the server entry point
 * does, hits an unhandled rejection or an uncaught exception (CRASH_WITH): for the test that
 * the process logs it and shuts down in order.
 */
import { loadConfig } from '../../src/config';
import { startConnector } from '../../src/main/compose';

void (async () => {
  const connector = await startConnector(loadConfig());
  connector.shutdown.listen();
  setTimeout(() => {
    if (process.env.CRASH_WITH === 'exception') throw new Error('boom: uncaught');
    void Promise.reject(new Error('boom: unhandled'));
  }, 100);
})();
