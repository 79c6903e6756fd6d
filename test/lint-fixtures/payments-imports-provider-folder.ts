// lint as: src/payments/fixture.ts — the payments root, not the list, reaching into a provider's folder.
import { sandboxModule } from './sandbox/sandbox-module';

export const module = sandboxModule;
