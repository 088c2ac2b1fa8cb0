// StrykerJS for `npm run mutation` (test/mutation/run.mjs sets the module to mutate
// and the tests that run against it). Not part of npm test.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts', related: false },
  coverageAnalysis: 'perTest',
  reporters: ['clear-text', 'json', 'progress'],
  jsonReporter: { fileName: process.env.SVC_MUTATION_REPORT ?? 'reports/mutation/mutation.json' },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
  ignorePatterns: ['reports', '.stryker-tmp', 'coverage'],
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
  timeoutMS: 20000,
  incremental: false,
  // Stryker rewrites the tsconfig's `extends` and `references` that point outside its
  // sandbox copy through TypeScript's JavaScript API, which TypeScript 7 no longer has
  // (`ts.parseConfigFileTextToJson is not a function`). svc's tsconfigs only point
  // inside the repository, so there is nothing to rewrite: naming a file that does not
  // exist skips that step. No checker runs either: the vitest runner alone decides.
  tsconfigFile: 'no-tsconfig-rewrite.json',
  checkers: [],
};
