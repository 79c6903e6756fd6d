import { once } from 'node:events';
import { createServer, type RequestListener } from 'node:http';

/** A real HTTP server on 127.0.0.1 and a free port, for the fakes of outside services. */
export async function serveOnLoopback(
  app: RequestListener,
): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer(app);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A fake of an outside service: its app, served on loopback by `start`, ended by `stop`. */
export abstract class LoopbackFake {
  url = '';
  private close: (() => Promise<void>) | undefined;

  protected abstract buildApp(): RequestListener;

  async start(): Promise<string> {
    const served = await serveOnLoopback(this.buildApp());
    this.close = served.close;
    this.url = served.url;
    return this.url;
  }

  async stop(): Promise<void> {
    await this.close?.();
  }
}
