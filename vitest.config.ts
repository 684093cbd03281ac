import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The CLI tests run the built binary; `npm test` builds before vitest starts.
    testTimeout: 20_000,
  },
});
