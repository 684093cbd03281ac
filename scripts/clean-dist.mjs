// tsc never deletes an output whose source is gone: start each build from an empty dist/ so nothing stale ships.
import { rmSync } from 'node:fs';
rmSync(new URL('../dist/', import.meta.url), { recursive: true, force: true });
