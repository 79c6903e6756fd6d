// lint as: src/delivery/fixture.ts — a use case importing an inbound adapter.
import { createApp } from '../http/app';

export const build = createApp;
