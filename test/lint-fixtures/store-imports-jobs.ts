// lint as: src/store/fixture.ts — an outbound adapter importing the job layer.
import { QUEUES } from '../jobs/queue-names';

export const names = QUEUES;
