// lint as: src/http/routes/fixture.ts — production code importing the platform simulator.
import { PlatformSimulator } from '../../simulator/platform-simulator';

export const simulator = new PlatformSimulator();
