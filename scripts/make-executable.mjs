// tsc does not keep the executable bit; npm sets it on install, but local runs of dist/ need it too.
import { chmodSync } from 'node:fs';
chmodSync(new URL('../dist/src/cli/main.js', import.meta.url), 0o755);
