/** The dashboard API routes of the risk area (none yet: the area works through the bridge). */
import type { Area } from './kit.js';

export const area: Area = {
  routes() {},
  docs: {},
};
