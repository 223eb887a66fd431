// The API reference's checks (wasm/typedoc.config.mjs; `npm run docs` renders it to build/api/):
// every export of the package's entry points documented, every {@link} resolved, and no type
// referenced that the reference leaves out. TypeDoc converts and validates here through its Node
// API, without rendering any HTML. It reads the TypeScript sources and the files scripts/build.sh
// generates.
import { join } from 'node:path';
import { Application, Logger, LogLevel } from 'typedoc';
import { expect, it } from 'vitest';

/** Keeps every warning and error TypeDoc reports, instead of printing them. */
class CollectingLogger extends Logger {
  readonly messages: string[] = [];

  override log(message: string, level: LogLevel): void {
    super.log(message, level);
    if (level >= LogLevel.Warn) this.messages.push(`[${level === LogLevel.Error ? 'error' : 'warning'}] ${message}`);
  }
}

it('documents every export of the public entry points, with no broken link', async () => {
  const app = await Application.bootstrapWithPlugins({ options: join(__dirname, '../../wasm/typedoc.config.mjs') });
  // Reading the options (the config, the tsconfig) logged to the console; anything there is a failure too.
  const optionProblems = app.logger.errorCount + app.logger.warningCount;
  const logger = new CollectingLogger();
  app.logger = logger;
  const project = await app.convert();
  expect(project, `TypeDoc could not convert the entry points:\n${logger.messages.join('\n')}`).toBeDefined();
  app.validate(project!);

  const undocumented = logger.messages.flatMap((m) => /^\[warning\] (\S+) \(\w+\), defined in .* does not have any documentation$/.exec(m)?.[1] ?? []);
  expect(optionProblems, 'reading wasm/typedoc.config.mjs reported problems: run `npm run docs` to see them').toBe(0);
  expect(logger.messages, [
    `TypeDoc reported ${logger.messages.length} problem(s)`,
    ...(undocumented.length ? [`undocumented exports: ${[...new Set(undocumented)].join(', ')}`] : []),
    ...logger.messages,
  ].join('\n')).toEqual([]);
});
