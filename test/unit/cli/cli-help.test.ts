import { runCliCaptured } from '../../support/cli';
import { PROVIDER_NAMES } from '../../../src/payments/providers';
import { documentFields } from '../../../src/shop-registry/shop-document';

/** CONTRACT "The first hour": `--help` of every command is complete, defaults said once. */
describe("the CLI's help", () => {
  const help = async (...args: string[]) => {
    const run = await runCliCaptured([...args, '--help'], {});
    expect(run.code).toBe(0);
    return run.stdout;
  };

  it('says the default of --shop once, on every command that takes it', async () => {
    for (const command of [
      ['checkout', 'status'],
      ['checkout', 'start'],
      ['notifications', 'failed'],
      ['sync'],
      ['services', 'list'],
    ]) {
      const text = (await help(...command)).replace(/\s+/g, ' ');
      const option = /--shop <id> (.*?)(?= -h, --help| --\w)/.exec(text)?.[1] ?? '';
      expect({ command, option }).toEqual({ command, option: expect.stringContaining('default') });
      expect({ command, defaults: option.match(/default:/g)?.length }).toEqual({
        command,
        defaults: 1,
      });
    }
  });

  it('describes the shop document under shops add: every field of every provider, secrets said', async () => {
    const text = await help('shops', 'add');
    for (const provider of PROVIDER_NAMES) {
      for (const field of documentFields(provider)) {
        const line = text.split('\n').find((row) => row.trimStart().startsWith(field.path));
        expect({ field: field.path, line }).toEqual({
          field: field.path,
          line: expect.any(String),
        });
        expect({ field: field.path, secret: line?.includes('secret') }).toEqual({
          field: field.path,
          secret: field.secret,
        });
      }
    }
    expect(text).toContain('"provider"');
  });
});
