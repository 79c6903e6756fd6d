// npm run test:soak: the whole suite, several times in a row, while CPU hogs keep every core
// busy; each run's count, time and verdict, and a failure if any run failed or a jest worker had
// to be killed. Proof that the suite does not fail by chance on a loaded machine.
//
//   npm run test:soak                      5 runs, one hog per core
//   SOAK_RUNS=10 SOAK_HOGS=4 npm run test:soak
//   npm run test:soak -- test/integration  extra arguments go to jest
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const JEST = path.join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js');
const runs = Number(process.env.SOAK_RUNS ?? 5);
const hogCount = Number(process.env.SOAK_HOGS ?? availableParallelism());
const jestArgs = process.argv.slice(2);
/** A line on standard output. */
const say = (line) => process.stdout.write(`${line}\n`);
const logs = mkdtempSync(path.join(tmpdir(), 'connector-soak-'));

const hogs = Array.from({ length: hogCount }, () =>
  spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
);
const stopHogs = () => hogs.forEach((hog) => hog.kill('SIGKILL'));
process.on('exit', stopHogs);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    stopHogs();
    process.exit(130);
  });
}

/** One run of jest as `npm test` runs it (coverage on); resolves with what it said. */
function runSuite(index) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [JEST, '--coverage', ...jestArgs], {
      cwd: ROOT,
      env: process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('exit', (code, signal) => {
      const log = path.join(logs, `run-${index}.log`);
      writeFileSync(log, output);
      const counts = /^tests: (\d+) passed, (\d+) failed/m.exec(output);
      const failedFiles = [...output.matchAll(/^FAIL (\S+)/gm)].map((match) => match[1]);
      resolve({
        index,
        code: code ?? signal,
        passed: counts ? Number(counts[1]) : 0,
        failed: counts ? Number(counts[2]) : Number.NaN,
        seconds: Math.round((Date.now() - started) / 1000),
        killedWorker: output.includes('failed to exit gracefully'),
        failedFiles,
        log,
      });
    });
  });
}

say(
  `soak: ${runs} runs of the suite beside ${hogCount} CPU hog(s) on ${availableParallelism()} core(s); logs in ${logs}`,
);
const results = [];
for (let index = 1; index <= runs; index += 1) {
  const result = await runSuite(index);
  results.push(result);
  const verdict =
    result.code === 0 && result.failed === 0 && !result.killedWorker ? 'ok' : 'FAILED';
  say(
    `soak: run ${index}: ${result.passed} passed, ${result.failed} failed, ${result.seconds} s, ` +
      `exit ${result.code}${result.killedWorker ? ', a worker was force exited' : ''}: ${verdict}` +
      (result.failedFiles.length ? ` (${result.failedFiles.join(', ')}; ${result.log})` : ''),
  );
}
stopHogs();
const bad = results.filter((r) => r.code !== 0 || r.failed !== 0 || r.killedWorker);
const passed = results.reduce((sum, r) => sum + r.passed, 0);
const failed = results.reduce((sum, r) => sum + (Number.isNaN(r.failed) ? 1 : r.failed), 0);
say(
  `soak: ${results.length - bad.length} of ${results.length} runs clean under load ` +
    `(${results.map((r) => `${r.seconds} s`).join(', ')})`,
);
say(`${passed} passed, ${failed} failed`);
process.exit(bad.length === 0 ? 0 : 1);
