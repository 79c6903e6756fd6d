// Writes config/.env.example and config/defaults.env from the schema (src/config/env-docs.ts).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderDefaultsEnv, renderEnvExample } from '../src/config/env-docs';

const dir = path.join(__dirname, '..', 'config');
writeFileSync(path.join(dir, '.env.example'), renderEnvExample());
writeFileSync(path.join(dir, 'defaults.env'), renderDefaultsEnv());
process.stdout.write('config:docs: wrote config/.env.example and config/defaults.env\n');
