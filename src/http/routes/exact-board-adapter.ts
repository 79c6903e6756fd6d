import type { AppControllerRoute, AppViewRoute } from '@bull-board/api/typings/app';
import { ExpressAdapter } from '@bull-board/express';
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import { exactRouter, exactRouting } from '../exact-routes';
import { withoutOutsideRequests } from '../dashboard/offline-page';

/**
 * bull-board's Express adapter with exact paths, as every route of the connector has: its own
 * app (pages, static files) routes case-sensitively and strictly, and so does its API, which the
 * stock adapter mounts on a default Router (case-insensitive, a trailing slash allowed). The API
 * is served as the stock adapter serves it (same JSON body, same handler, same error handler).
 * Its page is rendered as the stock adapter renders it, less what another host would serve
 * (bull-board links Google Fonts): the dashboard loads nothing from elsewhere.
 */
export class ExactBoardAdapter extends ExpressAdapter {
  constructor() {
    super();
    // Before bull-board adds its first route: Express builds an app's router with its settings then.
    exactRouting(this.app);
  }

  override setEntryRoute(routeDef: AppViewRoute): this {
    const page: RequestHandler = (_req, res, next) => {
      const { name, params } = routeDef.handler({
        basePath: this.basePath,
        uiConfig: this.uiConfig,
      });
      res.render(name, params, (error: Error | null, html: string) => {
        if (error) return next(error);
        res.type('html').send(withoutOutsideRequests(html));
      });
    };
    this.app[routeDef.method](routeDef.route, page);
    return this;
  }

  override setApiRoutes(routes: AppControllerRoute[]): this {
    const { errorHandler, bullBoardQueues: queues } = this;
    if (!errorHandler || !queues)
      throw new Error('bull-board sets its queues and error handler first');
    const api = exactRouter();
    api.use(express.json());
    for (const route of routes) {
      for (const method of [route.method].flat()) {
        // Express 5 hands a rejected promise to the error handler below.
        api[method](route.route, async (req, res) => {
          const answer = await route.handler({
            queues,
            uiConfig: this.uiConfig,
            query: req.query as Record<string, unknown>,
            params: req.params,
            body: req.body as Record<string, unknown>,
            headers: req.headers as Record<string, string | undefined>,
          });
          res.status(answer.status ?? 200).json(answer.body);
        });
      }
    }
    const failed: ErrorRequestHandler = (error: Error, _req, res, _next) => {
      const answer = errorHandler(error);
      res.status(answer.status ?? 500).send(answer.body);
    };
    api.use(failed);
    (this.app as Express).use(api);
    return this;
  }
}
