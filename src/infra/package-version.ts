import { readFileSync } from 'node:fs';
import path from 'node:path';

let cached: string | undefined;

/** The connector's version from package.json (beside src/ and dist/ alike). */
export function packageVersion(): string {
  const file = path.join(__dirname, '..', '..', 'package.json');
  cached ??= (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  return cached;
}
