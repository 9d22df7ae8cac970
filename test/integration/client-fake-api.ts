/**
 * Temporary re-export for client-nock.test.ts and client-offset.test.ts, which import the fake API
 * from here: it lives in test/helpers/fake-api.ts. Delete this file once they import it from there.
 */
export { createFakeApi, type FakeApi, type FakeApiOptions, type FakeReply, type LogEntry } from '../helpers/fake-api.js';
