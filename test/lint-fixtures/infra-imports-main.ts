// lint as: src/infra/fixture.ts — a lower layer importing the composition root.
import { startConnector } from '../main/compose';

export const start = startConnector;
