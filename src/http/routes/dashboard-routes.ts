import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { Router, type Express } from 'express';
import { exactRouter } from '../exact-routes';
import { DASHBOARD_PATH } from '../public-paths';
import { ExactBoardAdapter } from './exact-board-adapter';
import { LOCAL_FONT_THEME } from '../dashboard/offline-page';
import type { Queue } from 'bullmq';
import type { Logger } from '../../infra/logger';
import { basicAuth } from '../middleware/basic-auth';
import {
  dashboardErrorShape,
  dashboardHeaders,
  dashboardWriteGuard,
} from '../middleware/dashboard-guard';

/**
 * The operators' queue dashboard (bull-board) behind basic auth, with security headers and a CSP
 * of its own: failed deliveries with their reason, retry one or all, clean; nothing else is
 * written through it (dashboard-guard.ts). Only mounted when DASHBOARD_USER and
 * DASHBOARD_PASSWORD are set.
 */
export function dashboardRoutes(
  queues: readonly Queue[],
  credentials: { user: string; password: string },
  context: { publicUrl: string; logger: Logger },
): Router {
  const serverAdapter = new ExactBoardAdapter();
  serverAdapter.setBasePath(DASHBOARD_PATH);
  createBullBoard({
    queues: queues.map(
      (queue) => new BullMQAdapter(queue, { description: DESCRIPTIONS[queue.name] }),
    ),
    serverAdapter,
    options: { uiConfig: { boardTitle: 'Checkout connector', theme: LOCAL_FONT_THEME } },
  });
  // bull-board serves from an Express app of its own, which announces itself unless told not to.
  const board = serverAdapter.getRouter() as Express;
  board.disable('x-powered-by');
  const router = exactRouter();
  router.use(
    DASHBOARD_PATH,
    dashboardHeaders(),
    (_req, res, next) => {
      res.setHeader('cache-control', 'no-store');
      next();
    },
    basicAuth(credentials.user, credentials.password, 'connector dashboard'),
    dashboardWriteGuard({ ...context, operator: credentials.user }),
    dashboardErrorShape(context.logger),
    board,
  );
  return router;
}

/**
 * What each queue holds, and what its Delayed jobs are: on the overview, the card's info tip;
 * on the queue's page, the line under its name (cut to one line on a wide screen, so what an
 * operator most needs comes first). A job scheduler's next run is a delayed job, so the checkout
 * queue never shows Delayed 0: that is normal, and the description says so.
 */
const DESCRIPTIONS: Record<string, string> = {
  checkout:
    'Delayed is normal here: the reconciler’s next run and each open checkout’s expiry check ' +
    'wait there. This queue also produces checkout URLs; trouble shows in Failed.',
  notifications:
    'finish-checkout and cancel-checkout deliveries to the platform: Delayed ones wait for their ' +
    'next attempt (retried for days), Failed ones have given up and can be retried here.',
  sync:
    'Delayed is normal here: the next scheduled ERP sync pass waits there, with deliveries due ' +
    'for a retry. Passes, and services delivered to the ERP (a failed one is retried alone).',
  providers:
    'Delayed is normal here: the next renewal pass (every 15 min) and webhook pass (every ' +
    'minute) wait there. Connected credentials renewed (a renew job each), webhooks registered.',
};
