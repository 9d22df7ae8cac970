/**
 * Temporary re-export for test/integration/export-*.test.ts, which import the world from here: the
 * world lives in test/helpers/world.ts. Delete this file once those suites import it from there.
 */
export {
  CANARY,
  canaryFree,
  createWorld,
  runInProcess,
  START,
  tempDir,
  type SandboxWorld,
  type TempDir,
} from '../helpers/world.js';
