import { createRedactor } from '../scrubbing/redact';
import { printable } from './terminal-text';

/** `FAIL` stops the connector, `warn` it works with but should not, `skip` could not run. */
export type Mark = 'ok' | 'warn' | 'FAIL' | 'skip';

export interface Finding {
  mark: Mark;
  /** What it is about: `config`, `redis`, `platform`, `shops`, `shop <id>`. */
  subject: string;
  found: string;
  /** What to do about it; every finding but an ok one has one. */
  fix?: string;
}

export const ok = (subject: string, found: string): Finding => ({ mark: 'ok', subject, found });
const withFix =
  (mark: Mark) =>
  (subject: string, found: string, fix: string): Finding => ({ mark, subject, found, fix });
export const warn = withFix('warn');
export const fail = withFix('FAIL');
export const skip = withFix('skip');

/** Whether doctor exits 1: some finding is a failure (warnings alone are not). */
export function anyFailed(findings: readonly Finding[]): boolean {
  return findings.some((finding) => finding.mark === 'FAIL');
}

/** The findings with every secret value replaced, wherever a line quotes one. */
export function withoutSecrets(
  findings: readonly Finding[],
  secrets: readonly string[],
): Finding[] {
  const redact = createRedactor(secrets);
  const clean = (text: string) => String(redact(text));
  return findings.map((finding) => ({
    ...finding,
    found: clean(finding.found),
    ...(finding.fix === undefined ? {} : { fix: clean(finding.fix) }),
  }));
}

export function findingsTable(findings: readonly Finding[]): string {
  const width = Math.max(0, ...findings.map((finding) => printable(finding.subject).length));
  return findings
    .map((finding) => {
      const fix = finding.fix === undefined ? '' : `; fix: ${finding.fix}`;
      return `${finding.mark.padEnd(4)}  ${printable(finding.subject).padEnd(width)}  ${finding.found}${fix}\n`;
    })
    .join('');
}

/** `{"ok", "findings": [{"status": "ok" | "warn" | "fail" | "skip", "subject", "found", "fix"}]}`. */
export function findingsJson(findings: readonly Finding[]): string {
  const answer = {
    ok: !anyFailed(findings),
    findings: findings.map(({ mark, subject, found, fix }) => ({
      status: mark.toLowerCase(),
      subject,
      found,
      ...(fix === undefined ? {} : { fix }),
    })),
  };
  return `${JSON.stringify(answer, null, 2)}\n`;
}
