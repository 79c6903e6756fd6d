// `npm run demo`'s build step: compiles src/ to dist/ (`npm run build`) unless dist/ is already
// newer than every source file and setting, so a demo started again starts in a second. A full
// build each time, not tsc's incremental mode: a stale .tsbuildinfo once made tsc report type
// errors that were not there.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** The newest modification time under `dir`, in milliseconds. */
function newest(dir) {
  let time = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const at = path.join(dir, entry.name);
    time = Math.max(time, entry.isDirectory() ? newest(at) : statSync(at).mtimeMs);
  }
  return time;
}

const built = path.join('dist', 'demo', 'demo.js');
const settings = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];
const sources = Math.max(newest('src'), ...settings.map((file) => statSync(file).mtimeMs));
if (!existsSync(built) || statSync(built).mtimeMs < sources) {
  execFileSync('npm', ['run', 'build'], { stdio: 'inherit' });
}
