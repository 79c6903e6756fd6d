// Writes config/.env.example, config/defaults.env and README.md's variables from the schema
// (src/config/env-docs.ts, src/config/readme-variables.ts), and README.md's list of a shop
// document's fields from the shop schema (src/shop-registry/shop-fields-docs.ts).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderDefaultsEnv, renderEnvExample } from '../src/config/env-docs';
import { withReadmeVariables } from '../src/config/readme-variables';
import { withShopFields } from '../src/shop-registry/shop-fields-docs';

const root = path.join(__dirname, '..');
const dir = path.join(root, 'config');
writeFileSync(path.join(dir, '.env.example'), renderEnvExample());
writeFileSync(path.join(dir, 'defaults.env'), renderDefaultsEnv());
const readme = path.join(root, 'README.md');
writeFileSync(readme, withShopFields(withReadmeVariables(readFileSync(readme, 'utf8'))));
process.stdout.write(
  'config:docs: wrote config/.env.example, config/defaults.env, and the variables and the shop document fields of README.md\n',
);
