/**
 * One capture directory per `vitest run` (see test/helpers/capture.ts), shared by every project and
 * worker through the environment; removed at the end unless PAYGATE_KEEP_CAPTURE is set.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export default function setup() {
  if (!process.env.PAYGATE_CAPTURE_DIR) {
    process.env.PAYGATE_CAPTURE_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'paygate-capture-'));
  }
  const dir = process.env.PAYGATE_CAPTURE_DIR;
  return () => {
    if (!process.env.PAYGATE_KEEP_CAPTURE && dir.includes('paygate-capture-')) fs.rmSync(dir, { recursive: true, force: true });
  };
}
