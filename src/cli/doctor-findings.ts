import { createRedactor } from '../infra/redact';
import { printable } from './terminal-text';

/**
 * What `connector doctor` says about a configuration: one finding a line. `FAIL` is what stops
 * the connector from working (or the server from starting), `warn` what it works with but
 * should not, `skip` a check that could not run because of a failure said on another line.
 */
export type Mark = 'ok' | 'warn' | 'FAIL' | 'skip';

export interface Finding {
  mark: Mark;
  /** What it is about: `config`, `redis`, `platform`, `shops`, `shop <id>`. */
  subject: string;
  /** What was found. */
  found: string;
  /** What to do about it; every finding but an ok one has one. */
  fix?: string;
}

export function ok(subject: string, found: string): Finding {
  return { mark: 'ok', subject, found };
}

export function warn(subject: string, found: string, fix: string): Finding {
  return { mark: 'warn', subject, found, fix };
}

export function fail(subject: string, found: string, fix: string): Finding {
  return { mark: 'FAIL', subject, found, fix };
}

export function skip(subject: string, found: string, fix: string): Finding {
  return { mark: 'skip', subject, found, fix };
}

/** Whether doctor exits 1: some finding is a failure (warnings alone are not). */
export function anyFailed(findings: readonly Finding[]): boolean {
  return findings.some((finding) => finding.mark === 'FAIL');
}

/**
 * The findings with every secret value of the configuration replaced, in whatever a line
 * quotes (an error's message, a URL): the logger's redaction, applied to doctor's output.
 */
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

/** One line a finding: its mark, its subject (in a column), what was found, and the fix. */
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
