// Jest runs through `npm test` (bin/test.ts), which starts the test stack and passes its env.
// ts-jest only transpiles (isolatedModules): `tsc --noEmit` in npm test does the type checking.
/** @type {import('jest').Config} */
module.exports = {
  rootDir: __dirname,
  roots: ['<rootDir>/test', '<rootDir>/modules'],
  testMatch: ['**/*.test.ts'],
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: { isolatedModules: true } }],
  },
  moduleFileExtensions: ['ts', 'js', 'json'],
  // Also the bound of every beforeAll/afterAll: closing an engine harness (waiting for runs to finish,
  // worker shutdown, schedule clean-up) took over 30 s once at load average 20 on 2 cores.
  testTimeout: 60_000,
  maxWorkers: 2,
  // Inside the repository's ignored .data folder rather than the system temp folder.
  cacheDirectory: '<rootDir>/.data/jest-cache',
};
