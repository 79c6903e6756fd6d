import { once } from 'node:events';
import type { Server } from 'node:http';
import type { Express } from 'express';

/** Listens on 127.0.0.1:0 and returns the base URL and a close function. */
export async function listen(
  app: Express,
): Promise<{ url: string; server: Server; close: () => Promise<void> }> {
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
