// lint as: src/cli/fixture.ts — the CLI opening a queue itself instead of using its ports.
import { Queue } from 'bullmq';

export const queue = Queue;
