/**
 * Where the browser tests write their screenshots: a folder of the temporary directory, so `npm test`
 * leaves the working tree as it found it. `npm run screenshots` sets PAYGATE_SCREENSHOTS_DIR to
 * docs/screenshots to refresh the pictures of the docs deliberately (then commit them).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export function screenshotDir(env: NodeJS.ProcessEnv = process.env): string {
  const dir = env.PAYGATE_SCREENSHOTS_DIR ? path.resolve(env.PAYGATE_SCREENSHOTS_DIR) : path.join(os.tmpdir(), 'paygate-screenshots');
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}
